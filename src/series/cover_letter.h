// The cover letter of one series: the blurb (what the series does, which tree it is for, how
// the sweep split that tree's patches, the validation figures, what changed since the last
// version) and the mail around it, laid out as `git format-patch --cover-letter` writes it.
#pragma once

#include "core/rule.h"
#include "rewrite/fixer.h"
#include "series/message.h"
#include "series/report.h"
#include "series/sweep_index.h"

#include <string>
#include <vector>

namespace ksweep::series {

struct CoverPatch {
    std::string subject;
    std::vector<const FileFix*> files;
};

// Where the series stands in the sweep.
struct CoverPlace {
    std::string tree;                     // T: line; "" when the entry names none
    std::string entry;                    // the MAINTAINERS section
    std::string name;                     // this series
    std::vector<std::string> tree_series; // every series of that tree in this sweep
    size_t max_patches = 15;
    std::string changes; // changes_since()'s text, "" for a first version
};

// The cover letter's first line, from the sleep model for the tree's HZ and labelled so: "The
// msleep() calls this series converts ask for 2 to 10 ms and sleep for up to 12 to 20 ms
// (sleep model, HZ=250 from the tree's config)."
std::string model_first_line(const Rule& rule, const std::vector<CoverPatch>& patches,
                             const MessageContext& all);

// The blurb: model_first_line(), what the series does (and the tree's timers document's
// advice), where it goes, the validation figures labelled with their report.
std::string cover_blurb(const Rule& rule, const std::vector<CoverPatch>& patches,
                        const MessageContext& all, const ValidationFigures& report,
                        const CoverPlace& place);

struct CoverMail {
    std::string last_commit; // hex: git's cover letter's "From <sha>" line
    std::string subject;     // after [PATCH 0/N]
    std::string blurb;
    std::string author_name, author_email;
    long long date = 0;
    int reroll = 0;
    std::string message_id;
    std::vector<std::string> to, cc;
    std::vector<std::string> shortlog; // the patches' subjects
    std::string diffstat;
    std::string base;
    std::string signature;
};

std::string cover_letter(const CoverMail& m);

// "Changes in vN:" for the cover letter: patches new to the series, dropped from it (their
// sites are gone from the tree), changed (other text or subject), a new base.
std::string changes_since(const IndexSeries& previous, const std::vector<IndexPatch>& now,
                          const std::string& base, int version);

} // namespace ksweep::series
