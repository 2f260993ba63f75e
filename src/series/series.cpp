#include "series/series.h"

#include "core/cache_dir.h"
#include "git/git_handle.h"
#include "git/repository.h"
#include "git/scratch_prune.h"
#include "series/mail.h"
#include "series/maintainers.h"
#include "series/message.h"
#include "series/prefix.h"
#include "series/report.h"
#include "series/text_wrap.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::series {

using namespace ksweep::git;

namespace {

// core.abbrev when it is a number; else 12, the length the kernel's submitting-patches.rst
// asks for (git's "auto" depends on the object count and would differ between repositories).
int configured_abbrev(git_repository* repo) {
    git_config* raw = nullptr;
    if (git_repository_config_snapshot(&raw, repo) != 0)
        return 12;
    Config config(raw);
    int32_t value = 0;
    if (git_config_get_int32(&value, config.get(), "core.abbrev") == 0 && value >= 4 && value <= 40)
        return value;
    return 12;
}

struct Identity {
    std::string name, email;
    std::string formatted() const { return name + " <" + email + ">"; }
};

Identity identity_from(const std::string& signoff, git_repository* repo) {
    if (!signoff.empty()) {
        auto lt = signoff.find('<'), gt = signoff.rfind('>');
        if (lt == std::string::npos || gt == std::string::npos || gt < lt || lt == 0)
            throw std::runtime_error("--signoff wants \"Name <mail>\", not '" + signoff + "'");
        std::string name = signoff.substr(0, lt);
        while (!name.empty() && name.back() == ' ')
            name.pop_back();
        return {name, signoff.substr(lt + 1, gt - lt - 1)};
    }
    git_signature* raw = nullptr;
    if (git_signature_default(&raw, repo) != 0)
        throw std::runtime_error("no identity for Signed-off-by: set git config user.name and "
                                 "user.email, or pass --signoff \"Name <mail>\"");
    Signature sig(raw);
    return {sig->name, sig->email};
}

std::string yyyymmdd(long long now) {
    time_t t = static_cast<time_t>(now);
    struct tm tm {};
    gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
    return buf;
}

// Refuses a non-empty output directory unless forced; with force, old mails go.
void prepare_out_dir(const std::string& dir, bool force, bool remove_old) {
    if (!fs::exists(dir))
        return;
    if (!fs::is_directory(dir))
        throw std::runtime_error(dir + ": exists and is not a directory");
    if (fs::is_empty(dir))
        return;
    if (!force)
        throw std::runtime_error(dir + ": not empty; use --force to replace its patches, or -o");
    if (remove_old)
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".patch")
                fs::remove(e.path());
}

git_filemode_t mode_at(git_tree* tree, const std::string& path) {
    git_tree_entry* raw = nullptr;
    if (git_tree_entry_bypath(&raw, tree, path.c_str()) != 0)
        return GIT_FILEMODE_BLOB;
    TreeEntry e(raw);
    return git_tree_entry_filemode(e.get());
}

// One commit on top of `parent`: the group's files replaced by their fixed text.
git_oid commit_group(git_repository* repo, const git_oid& parent_id,
                     const std::vector<const FileFix*>& files, const std::string& tree_prefix,
                     const std::string& message, const git_signature* who) {
    Commit parent = lookup_commit(repo, parent_id);
    Tree parent_tree = commit_tree(parent.get());
    std::vector<std::string> paths;
    std::vector<git_tree_update> updates;
    paths.reserve(files.size());
    for (const auto* f : files) {
        paths.push_back(tree_prefix + f->file);
        git_tree_update u{};
        u.action = GIT_TREE_UPDATE_UPSERT;
        check(git_blob_create_from_buffer(&u.id, repo, f->fixed.data(), f->fixed.size()),
              "git_blob_create_from_buffer");
        u.filemode = mode_at(parent_tree.get(), paths.back());
        updates.push_back(u);
    }
    for (size_t i = 0; i < updates.size(); ++i)
        updates[i].path = paths[i].c_str();
    git_oid tree_id;
    check(
        git_tree_create_updated(&tree_id, repo, parent_tree.get(), updates.size(), updates.data()),
        "git_tree_create_updated");
    git_tree* raw_tree = nullptr;
    check(git_tree_lookup(&raw_tree, repo, &tree_id), "git_tree_lookup");
    Tree tree(raw_tree);
    const git_commit* parents[] = {parent.get()};
    git_oid id;
    check(git_commit_create(&id, repo, nullptr, who, who, nullptr, message.c_str(), tree.get(), 1,
                            parents),
          "git_commit_create");
    return id;
}

std::string diffstat(git_repository* repo, const git_oid& from, const git_oid& to) {
    Commit a = lookup_commit(repo, from), b = lookup_commit(repo, to);
    Tree ta = commit_tree(a.get()), tb = commit_tree(b.get());
    git_email_create_options email_opts = GIT_EMAIL_CREATE_OPTIONS_INIT;
    git_diff* raw = nullptr;
    check(git_diff_tree_to_tree(&raw, repo, ta.get(), tb.get(), &email_opts.diff_opts),
          "git_diff_tree_to_tree");
    Diff diff(raw);
    check(git_diff_find_similar(diff.get(), &email_opts.diff_find_opts), "git_diff_find_similar");
    git_diff_stats* raw_stats = nullptr;
    check(git_diff_get_stats(&raw_stats, diff.get()), "git_diff_get_stats");
    DiffStats stats(raw_stats);
    Buf buf;
    check(git_diff_stats_to_buf(&buf.buf, stats.get(),
                                static_cast<git_diff_stats_format_t>(
                                    GIT_DIFF_STATS_FULL | GIT_DIFF_STATS_INCLUDE_SUMMARY),
                                0),
          "git_diff_stats_to_buf");
    return buf.str();
}

void append_unique(std::vector<std::string>* out, const std::vector<std::string>& add) {
    for (const auto& a : add)
        if (std::find(out->begin(), out->end(), a) == out->end())
            out->push_back(a);
}

struct PlannedPatch {
    std::vector<const FileFix*> files;
    std::string module; // the group's module, "" when none
    std::string subject;
    std::string body;
    Recipients recipients;
    git_oid commit{};
};

std::string first_tag(const std::string& subject) {
    auto colon = subject.find(": ");
    return colon == std::string::npos ? "" : subject.substr(0, colon);
}

std::string cover_blurb(const Rule& rule, const std::vector<PlannedPatch>& patches,
                        const MessageContext& all, const ValidationFigures& report, size_t part,
                        size_t parts) {
    size_t sites = 0;
    for (const auto& p : patches)
        for (const auto* f : p.files)
            for (const auto& s : f->sites)
                sites += s.fixed;
    std::string target = expand("{target}", message_values(all));
    std::string jiffy = expand("{jiffy_ms}", message_values(all));
    std::string text = rule.summary.empty() ? "" : rule.summary + ".\n\n";
    text += "This series converts " + std::to_string(sites) + " call site" +
            (sites == 1 ? "" : "s") + " in " + std::to_string(patches.size()) + " driver" +
            (patches.size() == 1 ? "" : "s") + " to " + target + "(), one patch per driver. " +
            "At HZ=" + std::to_string(all.hz) + " a jiffy is " + jiffy +
            " ms and msleep() rounds every sleep up to whole jiffies and then to the timer "
            "wheel's granularity, so the sleeps below " +
            std::to_string(rule.threshold_ms) +
            " ms here last several times what they ask for; each patch lists its call sites "
            "with the real sleep predicted for them.\n\n";
    if (parts > 1)
        text += "This is part " + std::to_string(part) + " of " + std::to_string(parts) +
                ": the change touches more drivers than one posting should carry, so it is "
                "split into series of at most " +
                std::to_string(patches.size()) + " patches.\n\n";
    if (!report.patches.empty()) {
        text += std::string("Validation (ksweep validate: L1 git am, L2 checkpatch.pl --strict, "
                            "L3 module build, L4 QEMU boot with an emulated device): ") +
                (report.passed ? "every patch passed." : "NOT every patch passed.") + "\n\n";
        for (const auto& p : patches) {
            std::vector<std::string> names;
            for (const auto* f : p.files)
                names.push_back(f->file);
            if (const auto* m = report.for_files(names)) {
                text += "- " + p.subject.substr(0, p.subject.rfind(": ")) + ": " +
                        level_summary(*m) + ".\n";
                if (m->measured)
                    text += "  " + describe(*m, report) + "\n";
            }
        }
    } else {
        text += "No runtime measurements accompany this posting.\n";
    }
    return wrap_body(text, 75);
}

std::string cover_letter(const WrittenSeries& ws, const std::vector<PlannedPatch>& patches,
                         const std::string& subject, const std::string& blurb, const Identity& who,
                         const SeriesOptions& opts, long long now, const std::string& message_id,
                         const std::string& stats) {
    std::string mail = "From " + oid_hex(patches.back().commit) + " Mon Sep 17 00:00:00 2001\n";
    if (!message_id.empty())
        mail += "Message-Id: <" + message_id + ">\n";
    // git leaves the cover letter's headers unencoded (its pretty context for the cover
    // letter does not ask for encoded email headers); match it.
    mail += from_header(who.name, who.email, false);
    mail += "Date: " + rfc2822_date(now, 0) + "\n";
    std::string head = "Subject: " + subject_prefix(0, patches.size(), opts.reroll) + " ";
    mail += head + encoded_subject(head, subject, false) + "\n";
    mail += mime_headers_for(subject + blurb + who.name);
    mail += address_header("To", ws.to) + address_header("Cc", ws.cc) + "\n";
    mail += blurb + "\n";
    // git shortlog as format-patch --cover-letter prints it: wrapped at 72, indents 2 and 4.
    mail += who.name + " (" + std::to_string(patches.size()) + "):\n";
    for (const auto& p : patches)
        mail += git_wrap(p.subject, 2, 4, 72) + "\n";
    mail += "\n" + stats + "\n";
    mail += "\nbase-commit: " + ws.base + "\n";
    mail += "-- \n" + opts.signature + "\n\n";
    return mail;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
        throw std::runtime_error(path + ": cannot write");
}

} // namespace

namespace {

bool branch_exists(git_repository* repo, const std::string& name) {
    git_reference* raw = nullptr;
    int rc = git_branch_lookup(&raw, repo, name.c_str(), GIT_BRANCH_LOCAL);
    git_reference_free(raw);
    if (rc == GIT_ENOTFOUND)
        return false;
    check(rc, "git_branch_lookup");
    return true;
}

} // namespace

std::string unique_branch_name(git_repository* repo, const std::string& wanted, size_t parts,
                               const std::function<bool(const std::string&)>& also_taken) {
    int valid = 0;
    check(git_branch_name_is_valid(&valid, wanted.c_str()), "git_branch_name_is_valid");
    if (!valid)
        throw std::runtime_error("'" + wanted + "' is not a valid branch name");
    // A split series takes NAME-1..NAME-k: the name must be free with all of its parts.
    for (int n = 1;; ++n) {
        std::string name = n == 1 ? wanted : wanted + "-" + std::to_string(n);
        auto is_taken = [&](const std::string& n) {
            return branch_exists(repo, n) || (also_taken && also_taken(n));
        };
        bool taken = is_taken(name);
        for (size_t k = 1; parts > 1 && k <= parts && !taken; ++k)
            taken = is_taken(name + "-" + std::to_string(k));
        if (!taken)
            return name;
    }
}

SeriesResult write_series(const Rule& rule, const FixResult& fix, const SeriesOptions& in) {
    LibGit2 lib;
    SeriesOptions opts = in;
    if (opts.signature.empty())
        opts.signature = std::string("ksweep ") + KSWEEP_VERSION;
    const long long now = opts.now ? opts.now : static_cast<long long>(std::time(nullptr));
    if (fix.files.empty())
        throw std::runtime_error("nothing to send: the fix changed no file");

    ValidationFigures report;
    if (!opts.report.empty())
        report = load_report(opts.report);
    Maintainers maintainers = Maintainers::load(opts.tree);
    SeriesRepo repo =
        open_series_repo(opts.tree, opts.cache_dir.empty() ? ksweep::cache_dir() : opts.cache_dir);
    Identity who = identity_from(opts.signoff, repo.repo.get());
    git_signature* raw_sig = nullptr;
    check(git_signature_new(&raw_sig, who.name.c_str(), who.email.c_str(), now, 0),
          "git_signature_new");
    Signature sig(raw_sig);

    const int abbrev = configured_abbrev(repo.repo.get());

    SeriesResult result;
    result.scratch = repo.owned.has_value();
    result.repository = repo.git_dir;

    // A file whose text differs from the base commit has changes of its own (uncommitted, or
    // the tree moved on): committing the fixed text would send those too.
    Commit base = lookup_commit(repo.repo.get(), repo.base);
    Tree base_tree = commit_tree(base.get());
    std::vector<const FileFix*> usable;
    for (const auto& f : fix.files) {
        std::string committed;
        if (!read_blob_at(repo.repo.get(), base_tree.get(), repo.tree_prefix + f.file, &committed))
            result.warnings.push_back(f.file + ": not in the base commit; left out");
        else if (committed != f.original)
            result.warnings.push_back(f.file + ": differs from the base commit (uncommitted "
                                               "changes?); left out");
        else
            usable.push_back(&f);
    }
    if (usable.empty())
        throw std::runtime_error("nothing to send: every changed file was left out");

    std::vector<std::string> paths;
    for (const auto* f : usable)
        paths.push_back(f->file);
    auto groups = group_files(opts.tree, paths, opts.group, &maintainers);
    const size_t parts = (groups.size() + opts.max_patches - 1) / opts.max_patches;

    // With the default output folder, patches/<branch>, a name whose folder a run already
    // filled is taken too: pruning frees old branch names (scratch_prune.h), their mails stay.
    auto default_dir_used = [&](const std::string& name) {
        std::error_code ec;
        return opts.out_dir.empty() && !fs::is_empty("patches/" + name, ec) && !ec;
    };
    const std::string branch = unique_branch_name(
        repo.repo.get(),
        opts.branch.empty() ? "ksweep/" + rule.name + "-" + yyyymmdd(now) : opts.branch, parts,
        default_dir_used);
    std::string out_dir = opts.out_dir.empty() ? "patches/" + branch : opts.out_dir;
    auto part_name = [&](const std::string& s, size_t k) {
        return parts == 1 ? s : s + "-" + std::to_string(k);
    };
    for (size_t k = 1; k <= parts; ++k)
        prepare_out_dir(part_name(out_dir, k), opts.force, false);

    for (size_t k = 1; k <= parts; ++k) {
        size_t first = (k - 1) * opts.max_patches;
        size_t last = std::min(groups.size(), first + opts.max_patches);
        std::vector<PlannedPatch> patches;
        std::set<std::string> subjects;
        MessageContext all{&rule, {}, fix.scan.hz, fix.scan.kernel, nullptr, &report};
        git_oid parent = repo.base;
        for (size_t g = first; g < last; ++g) {
            PlannedPatch p;
            p.module = groups[g].module;
            std::vector<FileForLookup> lookup;
            std::vector<std::string> repo_paths, names;
            for (size_t i : groups[g].files) {
                p.files.push_back(usable[i]);
                all.files.push_back(usable[i]);
                lookup.push_back({usable[i]->file, usable[i]->original});
                repo_paths.push_back(repo.tree_prefix + usable[i]->file);
                names.push_back(usable[i]->file);
            }
            MessageContext ctx{
                &rule, p.files, fix.scan.hz, fix.scan.kernel, report.for_files(names), &report};
            std::optional<std::string> prefix;
            if (!repo.owned)
                prefix = modal_prefix(history_subjects(repo.repo.get(), repo.base, repo_paths));
            if (!prefix)
                prefix = prefix_from_maintainers(maintainers, names.front(), p.module);
            std::string summary = summary_from_template(ctx);
            p.subject = full_summary(*prefix, summary);
            std::string label =
                p.module.empty() ? fs::path(names.front()).stem().string() : p.module;
            if (subjects.count(p.subject))
                p.subject = full_summary(*prefix, summary, 75, " in " + label);
            for (int n = 2; subjects.count(p.subject); ++n)
                p.subject = full_summary(*prefix, summary, 75, " (" + std::to_string(n) + ")");
            subjects.insert(p.subject);
            p.body = commit_body(ctx, who.formatted());
            p.recipients = maintainers.recipients(lookup);
            p.commit = commit_group(repo.repo.get(), parent, p.files, repo.tree_prefix,
                                    p.subject + "\n\n" + p.body, sig.get());
            parent = p.commit;
            patches.push_back(std::move(p));
        }

        WrittenSeries ws;
        ws.base = oid_hex(repo.base);
        ws.branch = part_name(branch, k);
        git_reference* ref = nullptr;
        Commit tip = lookup_commit(repo.repo.get(), patches.back().commit);
        check(git_branch_create(&ref, repo.repo.get(), ws.branch.c_str(), tip.get(), 0),
              "git_branch_create");
        git_reference_free(ref);

        ws.dir = part_name(out_dir, k);
        prepare_out_dir(ws.dir, opts.force, true);
        fs::create_directories(ws.dir);
        for (const auto& p : patches) {
            append_unique(&ws.to, p.recipients.to);
            append_unique(&ws.cc, p.recipients.cc);
        }
        const bool cover = patches.size() > 1;
        const std::string cover_id =
            opts.thread && cover ? message_id_for("cover", now, who.email) : "";
        if (cover) {
            std::string tag = first_tag(patches.front().subject);
            bool shared = std::all_of(patches.begin(), patches.end(), [&](const PlannedPatch& p) {
                return first_tag(p.subject) == tag;
            });
            std::string subject = full_summary(shared ? tag : "", summary_from_template(all));
            std::string text = cover_letter(
                ws, patches, subject, cover_blurb(rule, patches, all, report, k, parts), who, opts,
                now, cover_id, diffstat(repo.repo.get(), repo.base, patches.back().commit));
            std::string file = ws.dir + "/" + patch_file_name(0, "cover-letter", opts.reroll);
            write_text(file, text);
            ws.files.push_back(file);
        }
        for (size_t i = 0; i < patches.size(); ++i) {
            const auto& p = patches[i];
            Commit c = lookup_commit(repo.repo.get(), p.commit);
            MailOptions mo;
            mo.abbrev = abbrev;
            mo.number = i + 1;
            mo.total = patches.size();
            mo.reroll = opts.reroll;
            mo.to = p.recipients.to;
            mo.cc = p.recipients.cc;
            mo.signature = opts.signature;
            if (opts.thread) {
                mo.message_id = message_id_for(oid_hex(p.commit), now, who.email);
                mo.in_reply_to = cover_id;
            }
            if (!cover)
                mo.base_commit = ws.base;
            std::string file = ws.dir + "/" + patch_file_name(i + 1, p.subject, opts.reroll);
            write_text(file, format_patch_mail(repo.repo.get(), c.get(), mo));
            ws.files.push_back(file);
            ws.subjects.push_back(p.subject);
        }
        result.series.push_back(std::move(ws));
    }
    // Only a scratch repository ksweep owns is pruned; in the user's own the branches stay.
    if (repo.owned) {
        std::vector<std::string> made;
        for (const auto& ws : result.series)
            made.push_back(ws.branch);
        try {
            result.pruned_branches = prune_scratch_branches(*repo.owned, made);
        } catch (const GitError& e) {
            result.warnings.push_back(std::string("old branches not pruned: ") + e.what());
        }
    }
    return result;
}

} // namespace ksweep::series
