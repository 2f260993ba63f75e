#include "series/sweep_plan.h"

#include "core/sha256.h"

#include <algorithm>
#include <map>
#include <set>

namespace ksweep::series {

namespace {

// b4's change-id shape: date, name, and 12 hex digits that tell two series of a name apart.
std::string new_change_id(const std::string& date, const std::string& name,
                          const PatchSlot& first) {
    auto digest = sha256(first.tree_key + "\n" + first.key);
    return date + "-" + name + "-" + to_hex(digest).substr(0, 12);
}

} // namespace

SweepPlan plan_sweep(const std::vector<PatchSlot>& slots, size_t max_patches,
                     const SweepIndex* previous, const std::string& date) {
    if (max_patches == 0)
        max_patches = 1;
    SweepPlan plan;
    std::set<std::string> names_taken;
    // Where each patch was, when its tree is still the same.
    std::map<std::pair<std::string, std::string>, size_t> was_in; // (tree, key) -> series
    if (previous) {
        plan.finished = previous->finished;
        for (const auto& f : previous->finished)
            names_taken.insert(f.name);
        for (size_t i = 0; i < previous->series.size(); ++i) {
            names_taken.insert(previous->series[i].name);
            for (const auto& p : previous->series[i].patches)
                was_in[{previous->series[i].tree_key, p.key}] = i;
        }
    }

    // Trees in order of their first patch; within a tree, kept series first, then new ones.
    std::vector<std::string> trees;
    std::map<std::string, std::vector<size_t>> by_tree;
    for (size_t i = 0; i < slots.size(); ++i) {
        if (!by_tree.count(slots[i].tree_key))
            trees.push_back(slots[i].tree_key);
        by_tree[slots[i].tree_key].push_back(i);
    }
    std::vector<bool> kept(previous ? previous->series.size() : 0, false);
    for (const auto& tree : trees) {
        std::map<size_t, SeriesPlan> old; // previous series index -> its plan
        std::vector<size_t> fresh;
        for (size_t i : by_tree[tree]) {
            auto it = was_in.find({tree, slots[i].key});
            if (it == was_in.end()) {
                fresh.push_back(i);
                continue;
            }
            SeriesPlan& s = old[it->second];
            if (!s.previous) {
                s.previous = &previous->series[it->second];
                s.name = s.previous->name;
                s.change_id = s.previous->change_id;
            }
            s.patches.push_back(i);
        }
        for (auto& [index, s] : old) {
            kept[index] = true;
            plan.series.push_back(std::move(s));
        }
        for (size_t start = 0; start < fresh.size(); start += max_patches) {
            SeriesPlan s;
            s.patches.assign(fresh.begin() + static_cast<long>(start),
                             fresh.begin() +
                                 static_cast<long>(std::min(fresh.size(), start + max_patches)));
            const std::string& slug = slots[s.patches.front()].slug;
            s.name = slug;
            for (int n = 2; names_taken.count(s.name); ++n)
                s.name = slug + "-" + std::to_string(n);
            names_taken.insert(s.name);
            s.change_id = new_change_id(date, s.name, slots[s.patches.front()]);
            plan.series.push_back(std::move(s));
        }
    }
    for (size_t i = 0; i < kept.size(); ++i)
        if (!kept[i]) {
            const auto& s = previous->series[i];
            plan.finished.push_back({s.name, s.change_id, s.tree,
                                     "no patch left to send: the sites of its " +
                                         std::to_string(s.patches.size()) +
                                         " patch(es) are gone from the tree (applied, or the "
                                         "code changed)"});
        }
    std::stable_sort(plan.series.begin(), plan.series.end(),
                     [](const SeriesPlan& a, const SeriesPlan& b) {
                         return a.patches.front() < b.patches.front();
                     });
    return plan;
}

} // namespace ksweep::series
