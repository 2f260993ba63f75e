// Which series each patch of a sweep goes into, and what those series are called.
//
// Series never mix maintainer trees (maintainer_tree.h): the patches of one tree, in path
// order, fill series of at most `max_patches` ("15 or so at a time", submitting-patches.rst).
// A tree's first series is named after the tree ("iio"), further ones "iio-2", "iio-3".
//
// Against the previous run's index the plan keeps identities: a patch that was in a series
// stays in it (same name, same change-id); patches new to the tree start new series; a series
// none of whose patches is still to do is finished (its sites are gone: applied, or the code
// changed), and its name is never given to another.
#pragma once

#include "series/sweep_index.h"

#include <string>
#include <vector>

namespace ksweep::series {

// What the plan needs to know of a patch.
struct PatchSlot {
    std::string key;      // the group key, stable across runs
    std::string tree_key; // TreeAssignment::key
    std::string slug;     // TreeAssignment::slug
};

struct SeriesPlan {
    std::string name;
    std::string change_id;
    std::vector<size_t> patches;           // indices into the slots, in path order
    const IndexSeries* previous = nullptr; // this series in the previous index, if it was there
};

struct SweepPlan {
    std::vector<SeriesPlan> series;       // in order of their first patch
    std::vector<FinishedSeries> finished; // the previous index's, and those finished now
};

// `date` ("20261202") starts new change-ids; `previous` may be nullptr (a first run).
SweepPlan plan_sweep(const std::vector<PatchSlot>& slots, size_t max_patches,
                     const SweepIndex* previous, const std::string& date);

} // namespace ksweep::series
