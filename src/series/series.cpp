#include "series/series.h"

#include "core/cache_dir.h"
#include "core/sha256.h"
#include "core/shared_paths.h"
#include "git/base_blobs.h"
#include "git/git_handle.h"
#include "git/pack_writer.h"
#include "git/repository.h"
#include "git/scratch_prune.h"
#include "rewrite/sleep_eval.h"
#include "series/cover_letter.h"
#include "series/mail.h"
#include "series/maintainer_tree.h"
#include "series/maintainers.h"
#include "series/message.h"
#include "series/prefix.h"
#include "series/report.h"
#include "series/sweep_plan.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
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

// An output directory holds the sweep's index and a folder per series. One that holds
// something else is refused unless forced; an earlier run's index makes this run its next.
void check_out_dir(const std::string& dir, bool force) {
    if (!fs::exists(dir))
        return;
    if (!fs::is_directory(dir))
        throw std::runtime_error(dir + ": exists and is not a directory");
    if (fs::is_empty(dir) || fs::exists(dir + "/index.json") || force)
        return;
    throw std::runtime_error(dir + ": not empty and holds no sweep index (index.json); use "
                                   "--force to write into it anyway, or -o");
}

// A series' folder gets only this run's mails: the earlier ones' *.patch files go.
void clear_mails(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return;
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

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
        throw std::runtime_error(path + ": cannot write");
}

} // namespace

namespace {

// Where a run's chosen branch name is held from its choice to the end of the run.
const std::string kReserved = "refs/ksweep-reserved/";

// True when this call reserved `name`; false when another run holds it.
bool reserve_branch_name(git_repository* repo, const std::string& name) {
    git_reference* ref = nullptr;
    const int rc = git_reference_symbolic_create(&ref, repo, (kReserved + name).c_str(),
                                                 ("refs/heads/" + name).c_str(), 0,
                                                 "ksweep: branch name reserved");
    git_reference_free(ref);
    if (rc == GIT_EEXISTS || rc == GIT_ELOCKED)
        return false;
    check(rc, "git_reference_symbolic_create");
    return true;
}

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

std::string unique_branch_name(git_repository* repo, const std::string& wanted,
                               const std::vector<std::string>& suffixes,
                               const std::function<bool(const std::string&)>& also_taken,
                               bool reserve) {
    int valid = 0;
    check(git_branch_name_is_valid(&valid, wanted.c_str()), "git_branch_name_is_valid");
    if (!valid)
        throw std::runtime_error("'" + wanted + "' is not a valid branch name");
    auto is_taken = [&](const std::string& n) {
        return branch_exists(repo, n) || (also_taken && also_taken(n));
    };
    // A sweep's series take NAME-<series>: the name must be free with all of them.
    for (int n = 1;; ++n) {
        std::string name = n == 1 ? wanted : wanted + "-" + std::to_string(n);
        bool taken = is_taken(name);
        for (size_t k = 0; k < suffixes.size() && !taken; ++k)
            taken = is_taken(name + "-" + suffixes[k]);
        // Reserved atomically (a ref created only if absent, under libgit2's lock file): two
        // runs on one scratch repository that chose the same free name while neither had
        // written its branches yet would otherwise both create them, and the second fail.
        if (!taken && (!reserve || reserve_branch_name(repo, name)))
            return name;
    }
}

void release_branch_name(git_repository* repo, const std::string& name) {
    git_reference* ref = nullptr;
    if (git_reference_lookup(&ref, repo, (kReserved + name).c_str()) == 0) {
        git_reference_delete(ref);
        git_reference_free(ref);
    }
}

namespace {

// A patch as decided before any commit: its files, subject, body, recipients and tree.
struct PlannedPatch {
    std::string key;
    std::vector<const FileFix*> files;
    std::vector<FileForLookup> lookup;
    std::string module; // the group's module, "" when none
    std::string prefix, summary;
    PrefixChoice prefix_choice;
    std::string body;
    Recipients recipients;
    TreeAssignment tree;
    git_oid commit{};
};

size_t sites_of(const std::vector<const FileFix*>& files) {
    size_t n = 0;
    for (const auto* f : files)
        for (const auto& s : f->sites)
            n += s.fixed;
    return n;
}

// What -v N compares: the text of every file before and after.
std::string digest_of(const std::vector<const FileFix*>& files) {
    Sha256 h;
    for (const auto* f : files) {
        h.update(f->file);
        h.update(std::string_view("\0", 1));
        h.update(f->original);
        h.update(std::string_view("\0", 1));
        h.update(f->fixed);
    }
    return to_hex(h.finish());
}

IndexPatch index_patch(const PlannedPatch& p, const std::string& subject) {
    IndexPatch ip;
    ip.key = p.key;
    ip.subject = subject;
    for (const auto* f : p.files)
        ip.files.push_back(f->file);
    ip.sites = sites_of(p.files);
    ip.prefix_source = p.prefix_choice.source;
    ip.digest = digest_of(p.files);
    ip.to = p.recipients.to;
    ip.cc = p.recipients.cc;
    return ip;
}

// Subjects unique within a series: a repeated one says which driver, then counts.
std::vector<std::string> unique_subjects(const std::vector<const PlannedPatch*>& patches) {
    std::set<std::string> seen;
    std::vector<std::string> out;
    for (const auto* p : patches) {
        std::string subject = full_summary(p->prefix, p->summary);
        std::string label =
            p->module.empty() ? fs::path(p->files.front()->file).stem().string() : p->module;
        if (seen.count(subject))
            subject = full_summary(p->prefix, p->summary, 75, " in " + label);
        for (int n = 2; seen.count(subject); ++n)
            subject = full_summary(p->prefix, p->summary, 75, " (" + std::to_string(n) + ")");
        seen.insert(subject);
        out.push_back(subject);
    }
    return out;
}

std::string first_tag(const std::string& subject) {
    auto colon = subject.find(": ");
    return colon == std::string::npos ? "" : subject.substr(0, colon);
}

} // namespace

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
    const kbuild::SleepApi sleep_api =
        opts.sleep_api ? *opts.sleep_api : evaluated_sleep_api(opts.tree, fix.scan.build_dir);
    // Every message's context: the fix's HZ and where it came from, the tree's sleep API.
    auto context_for = [&](std::vector<const FileFix*> files, const PatchMeasurement* measured) {
        MessageContext c;
        c.rule = &rule;
        c.files = std::move(files);
        c.hz = fix.scan.hz;
        c.kernel = fix.scan.kernel;
        c.measured = measured;
        c.report = &report;
        c.sleep_api = &sleep_api;
        c.hz_label = opts.hz_label;
        return c;
    };
    const auto seconds_since = [](std::chrono::steady_clock::time_point start) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto opening = std::chrono::steady_clock::now();
    SeriesRepo repo =
        open_series_repo(opts.tree, opts.cache_dir.empty() ? ksweep::cache_dir() : opts.cache_dir);
    const double repository_seconds = seconds_since(opening);
    // The run's commits, trees and blobs go into the repository as packs, not loose objects.
    PackedWrites packed(repo.repo.get());
    Identity who = identity_from(opts.signoff, repo.repo.get());
    git_signature* raw_sig = nullptr;
    check(git_signature_new(&raw_sig, who.name.c_str(), who.email.c_str(), now, 0),
          "git_signature_new");
    Signature sig(raw_sig);

    const int abbrev = configured_abbrev(repo.repo.get());

    SeriesResult result;
    result.repository_seconds = repository_seconds;
    result.scratch = repo.owned.has_value();
    result.repository = repo.git_dir;
    SweepIndex& index = result.index;
    index.rule = rule.name;
    // The tree by its directory's name: the index is shared, this machine's paths are not.
    index.tree = tree_name(opts.tree);
    index.base = oid_hex(repo.base);
    for (const auto& s : fix.skipped)
        index.left_alone.push_back(
            {s.finding.file + ":" + std::to_string(s.finding.line), s.reason});

    // A file whose text differs from the base commit has changes of its own (uncommitted, or
    // the tree moved on): committing the fixed text would send those too.
    Commit base = lookup_commit(repo.repo.get(), repo.base);
    Tree base_tree = commit_tree(base.get());
    // By blob id: a scratch base holds the ids of its files, not yet their content.
    std::vector<const FileFix*> usable;
    for (const auto& f : fix.files) {
        std::string why;
        git_tree_entry* raw_entry = nullptr;
        if (git_tree_entry_bypath(&raw_entry, base_tree.get(),
                                  (repo.tree_prefix + f.file).c_str()) != 0)
            why = "not in the base commit; left out";
        else if (TreeEntry entry(raw_entry); git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
            why = "not a file in the base commit; left out";
        else if (const git_oid id = blob_id(f.original);
                 !git_oid_equal(&id, git_tree_entry_id(entry.get())))
            why = "differs from the base commit (uncommitted changes?); left out";
        else
            usable.push_back(&f);
        if (!why.empty()) {
            result.warnings.push_back(f.file + ": " + why);
            index.left_alone.push_back({f.file, why});
        }
    }
    if (usable.empty())
        throw std::runtime_error("nothing to send: every changed file was left out");

    std::vector<std::string> paths;
    for (const auto* f : usable)
        paths.push_back(f->file);
    auto groups = group_files(opts.tree, paths, opts.group, &maintainers);

    // Each patch: its prefix (history when there is enough, else the table, else the path),
    // summary, body, recipients and the maintainer tree that will apply it.
    const SubjectTable& table = shipped_subject_table();
    std::vector<PlannedPatch> patches;
    std::vector<PatchSlot> slots;
    for (const auto& group : groups) {
        PlannedPatch p;
        p.key = group.key;
        p.module = group.module;
        std::vector<std::string> repo_paths, names;
        for (size_t i : group.files) {
            p.files.push_back(usable[i]);
            p.lookup.push_back({usable[i]->file, usable[i]->original});
            repo_paths.push_back(repo.tree_prefix + usable[i]->file);
            names.push_back(usable[i]->file);
        }
        MessageContext ctx = context_for(p.files, report.for_files(names));
        std::optional<std::vector<std::string>> history;
        if (!repo.owned)
            history = history_subjects(repo.repo.get(), repo.base, repo_paths);
        p.prefix_choice = choose_prefix(history ? &*history : nullptr, maintainers, names.front(),
                                        p.module, table, describe_paths(names));
        result.prefix_notes.push_back("prefix '" + prefix_as_written(p.prefix_choice.prefix) +
                                      "' from " + p.prefix_choice.source);
        p.prefix = p.prefix_choice.prefix;
        p.summary = with_verb_case(summary_from_template(ctx), p.prefix_choice.lower_verb);
        p.body = commit_body(ctx, who.formatted());
        p.recipients = maintainers.recipients(p.lookup);
        p.tree = assign_tree(maintainers, names);
        slots.push_back({p.key, p.tree.key, p.tree.slug});
        patches.push_back(std::move(p));
    }

    // With the default output folder, patches/<branch>, a name whose folder a run already
    // filled is taken too: pruning frees old branch names (scratch_prune.h), their mails stay.
    auto default_dir_used = [&](const std::string& name) {
        std::error_code ec;
        return opts.out_dir.empty() && !fs::is_empty("patches/" + name, ec) && !ec;
    };
    const std::string wanted_branch =
        opts.branch.empty() ? "ksweep/" + rule.name + "-" + yyyymmdd(now) : opts.branch;
    // An output folder given is where the sweep lives: its index makes this run the next one.
    // The default, patches/<branch>, is new for each run.
    std::optional<SweepIndex> previous;
    if (!opts.out_dir.empty()) {
        check_out_dir(opts.out_dir, opts.force);
        if (fs::exists(opts.out_dir + "/index.json"))
            previous = load_index(opts.out_dir + "/index.json");
        if (previous && previous->rule != rule.name)
            throw std::runtime_error(opts.out_dir + " holds a sweep of rule " + previous->rule +
                                     ", not " + rule.name + ": use another -o");
    }

    SweepPlan plan =
        plan_sweep(slots, opts.max_patches, previous ? &*previous : nullptr, yyyymmdd(now));
    index.finished = plan.finished;
    std::vector<std::string> names;
    for (const auto& sp : plan.series)
        names.push_back(sp.name);
    // One series keeps the plain branch name; several take NAME-<series>.
    const std::string branch = unique_branch_name(
        repo.repo.get(), wanted_branch, plan.series.size() > 1 ? names : std::vector<std::string>{},
        default_dir_used, !opts.plan_only);
    // The reservation ends with the run: by then the branches hold the name (or none was made).
    // A plan reserves nothing: it writes nothing.
    struct Release {
        git_repository* repo;
        const std::string& name;
        bool held;
        ~Release() {
            if (held)
                release_branch_name(repo, name);
        }
    } release{repo.repo.get(), branch, !opts.plan_only};
    const std::string final_out = opts.out_dir.empty() ? "patches/" + branch : opts.out_dir;
    if (!opts.plan_only)
        check_out_dir(final_out, opts.force);

    std::map<std::string, std::vector<std::string>> series_of_tree;
    for (const auto& sp : plan.series)
        series_of_tree[slots[sp.patches.front()].tree_key].push_back(sp.name);

    size_t done = 0;
    for (const auto& sp : plan.series) {
        std::vector<const PlannedPatch*> members;
        for (size_t i : sp.patches)
            members.push_back(&patches[i]);
        const std::vector<std::string> subjects = unique_subjects(members);
        const PlannedPatch& first = *members.front();

        IndexSeries is;
        is.name = sp.name;
        is.change_id = sp.change_id;
        is.tree = first.tree.tree;
        is.tree_key = first.tree.key;
        is.entry = first.tree.entry;
        // -v N is for the series an earlier run wrote; one new to this run is a first version.
        const int reroll = previous && !sp.previous ? 0 : opts.reroll;
        is.version = reroll > 0 ? reroll : sp.previous ? sp.previous->version : 1;
        is.branch = plan.series.size() > 1 ? branch + "-" + sp.name : branch;
        is.base = oid_hex(repo.base);
        // The cover letter goes to whom get_maintainer.pl names for all the series' files.
        std::vector<FileForLookup> all_files;
        for (const auto* p : members)
            all_files.insert(all_files.end(), p->lookup.begin(), p->lookup.end());
        Recipients everyone = maintainers.recipients(all_files);
        is.to = everyone.to;
        is.cc = everyone.cc;
        for (size_t i = 0; i < members.size(); ++i)
            is.patches.push_back(index_patch(*members[i], subjects[i]));
        const bool cover = members.size() > 1;
        // The cover letter's prefix: the first tag every patch of the series shares, or none.
        const std::string tag = first_tag(subjects.front());
        const bool shared = std::all_of(subjects.begin(), subjects.end(),
                                        [&](const std::string& s) { return first_tag(s) == tag; });
        if (cover)
            result.prefix_notes.push_back(
                "series " + sp.name + ": cover letter " +
                (shared && !tag.empty()
                     ? "prefix '" + tag + ": ' from its " + std::to_string(members.size()) +
                           " patches, which all start with it"
                     : std::string("without a prefix: its patches' first tags differ")));
        std::string changes;
        if (sp.previous && reroll > sp.previous->version)
            changes = changes_since(*sp.previous, is.patches, is.base, is.version);
        if (opts.plan_only) {
            index.series.push_back(std::move(is));
            continue;
        }

        MessageContext all = context_for({}, nullptr);
        std::vector<git_oid> commits;
        git_oid parent = repo.base;
        for (size_t i = 0; i < members.size(); ++i) {
            all.files.insert(all.files.end(), members[i]->files.begin(), members[i]->files.end());
            parent = commit_group(repo.repo.get(), parent, members[i]->files, repo.tree_prefix,
                                  subjects[i] + "\n\n" + members[i]->body, sig.get());
            commits.push_back(parent);
        }
        // The diffs read the files as they were, which a scratch base may not hold yet
        // (base_blobs.h): they go into the series' pack with its commits.
        std::vector<git_oid> kept = commits;
        if (repo.owned)
            for (const auto* member : members)
                for (const FileFix* f : member->files) {
                    check(git_blob_create_from_buffer(&kept.emplace_back(), repo.repo.get(),
                                                      f->original.data(), f->original.size()),
                          "git_blob_create_from_buffer");
                }
        // The series' objects on disk first, then its branch: a concurrent run sees the name
        // taken as soon as it can (its own name was chosen before it wrote anything).
        const auto packing = std::chrono::steady_clock::now();
        packed.flush(kept);
        result.pack_seconds += seconds_since(packing);
        git_reference* ref = nullptr;
        Commit tip = lookup_commit(repo.repo.get(), commits.back());
        check(git_branch_create(&ref, repo.repo.get(), is.branch.c_str(), tip.get(), 0),
              "git_branch_create");
        git_reference_free(ref);

        WrittenSeries ws;
        ws.name = sp.name;
        ws.change_id = sp.change_id;
        ws.branch = is.branch;
        ws.base = is.base;
        ws.to = is.to;
        ws.cc = is.cc;
        ws.dir = final_out + "/" + sp.name;
        clear_mails(ws.dir);
        fs::create_directories(ws.dir);
        // git's "cover.<time>.git.<mail>"; the series of one run are told apart by name.
        const std::string cover_what = plan.series.size() == 1 ? "cover" : "cover." + sp.name;
        const std::string cover_id =
            opts.thread && cover ? message_id_for(cover_what, now, who.email) : "";
        if (cover) {
            std::vector<CoverPatch> cover_patches;
            for (size_t i = 0; i < members.size(); ++i)
                cover_patches.push_back({subjects[i], members[i]->files});
            CoverPlace place{is.tree,          is.entry, sp.name, series_of_tree[is.tree_key],
                             opts.max_patches, changes};
            CoverMail m;
            m.last_commit = oid_hex(commits.back());
            m.subject = full_summary(shared ? tag : "",
                                     with_verb_case(summary_from_template(all),
                                                    shared && first.prefix_choice.lower_verb));
            m.blurb = cover_blurb(rule, cover_patches, all, report, place);
            m.author_name = who.name;
            m.author_email = who.email;
            m.date = now;
            m.reroll = reroll;
            m.message_id = cover_id;
            m.to = ws.to;
            m.cc = ws.cc;
            m.shortlog = subjects;
            m.diffstat = diffstat(repo.repo.get(), repo.base, commits.back());
            m.base = ws.base;
            m.signature = opts.signature;
            std::string file = ws.dir + "/" + patch_file_name(0, "cover-letter", reroll);
            write_text(file, cover_letter(m));
            ws.files.push_back(file);
        } else if (!changes.empty()) {
            result.warnings.push_back(sp.name + ": the changes since v" +
                                      std::to_string(sp.previous->version) +
                                      " are not written: a one-patch series has no cover letter");
        }
        for (size_t i = 0; i < members.size(); ++i) {
            Commit c = lookup_commit(repo.repo.get(), commits[i]);
            MailOptions mo;
            mo.abbrev = abbrev;
            mo.number = i + 1;
            mo.total = members.size();
            mo.reroll = reroll;
            mo.to = members[i]->recipients.to;
            mo.cc = members[i]->recipients.cc;
            mo.signature = opts.signature;
            if (opts.thread) {
                mo.message_id = message_id_for(oid_hex(commits[i]), now, who.email);
                mo.in_reply_to = cover_id;
            }
            if (!cover)
                mo.base_commit = ws.base;
            std::string file = ws.dir + "/" + patch_file_name(i + 1, subjects[i], reroll);
            write_text(file, format_patch_mail(repo.repo.get(), c.get(), mo));
            ws.files.push_back(file);
            ws.subjects.push_back(subjects[i]);
            if (opts.progress)
                opts.progress(++done, patches.size(), sp.name);
        }
        index.series.push_back(std::move(is));
        result.series.push_back(std::move(ws));
    }
    if (opts.plan_only)
        return result;

    // One pack for the run, not one per series.
    const auto packing = std::chrono::steady_clock::now();
    packed.consolidate();
    result.pack_seconds += seconds_since(packing);

    // Finished series leave no mails behind to be sent again by mistake.
    for (const auto& f : plan.finished) {
        clear_mails(final_out + "/" + f.name);
        std::error_code ec;
        fs::remove(final_out + "/" + f.name, ec); // only when empty
    }
    fs::create_directories(final_out);
    result.index_path = final_out + "/index.json";
    const std::vector<PathRoot> out_root{{final_out, ""}};
    write_text(result.index_path, shareable_text(render_index_json(index), opts.tree, out_root));
    write_text(final_out + "/index.md",
               shareable_text(render_index_markdown(index), opts.tree, out_root));

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
