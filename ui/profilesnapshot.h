// An immutable, shareable view of a loaded profile: the profile, its symbol table and the
// top-down call tree of one sample type. Built on a worker thread, handed to the GUI thread
// whole, never modified afterwards.
#pragma once

#include "model/analysis/calltree.h"
#include "model/analysis/diff.h"
#include "model/analysis/labelview.h"
#include "model/core/profile.h"
#include "model/analysis/stackfilter.h"
#include "model/core/progress.h"
#include "model/core/result.h"
#include "model/io/profileio.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::ui {

/// How the call tree of a snapshot is derived from its profile.
struct ViewOptions {
    size_t sampleType = 0;
    model::CallTree::Direction direction = model::CallTree::Direction::TopDown;
    std::vector<model::FilterRule> rules; ///< focus, ignore, hide, in the order they were added
    bool collapseRecursion = false;
    /// Group by label and label filters: applied to the profile itself (ProfileSnapshot::source).
    model::LabelView labels;
    /// A comparison drawn by the size of the change (model::CallTree::buildOfChange) instead of
    /// by NEW's or BASE's widths.
    bool widthByChange = false;

    bool operator==(const ViewOptions&) const = default;
};

struct ProfileSnapshot {
    std::string path; ///< file it was read from; empty when built in memory
    /// The format path was read in (Unknown for files merged or a profile built in memory): a
    /// save writes OTLP input as OTLP, as `symflame symbolize` does.
    model::ProfileFormat format = model::ProfileFormat::Unknown;
    /// What is shown: source with view.labels applied (source itself when they are empty).
    std::shared_ptr<const model::Profile> profile;
    /// The profile as loaded (and symbolized): what a change of view.labels starts from.
    std::shared_ptr<const model::Profile> source;
    std::shared_ptr<const model::SymbolTable> symbols;
    std::shared_ptr<const model::CallTree> tree; ///< for sampleType, shaped by the view options
    size_t sampleType = 0;
    ViewOptions view; ///< what tree was built with (view.sampleType == sampleType)

    /// A comparison of two profiles: profile is model::sideBySide's, its sample types
    /// [0, diffTypes) NEW's, [diffTypes, 2 diffTypes) BASE's, tree NEW's side; 0 for a single
    /// profile.
    size_t diffTypes = 0;
    /// A comparison's other side under the same view (type otherSideType(): BASE's, or NEW's when
    /// drawn by BASE's widths), and per node of tree its node there (invalid: a path only on the
    /// side drawn). Null for a single profile and for a preview tree.
    std::shared_ptr<const model::CallTree> baseTree;
    std::shared_ptr<const std::vector<model::NodeId>> baseMatch;
    /// A comparison drawn by the size of the change (view.widthByChange): tree is the change's,
    /// baseTree BASE's side, newTree NEW's and newMatch each node's node there. Null otherwise.
    std::shared_ptr<const model::CallTree> newTree;
    std::shared_ptr<const std::vector<model::NodeId>> newMatch;
    bool isDiff() const { return diffTypes > 0; }
    bool widthByChange() const { return newTree != nullptr; }
    /// A comparison's totals of NEW's and BASE's sides of the type shown, however it is drawn.
    int64_t newSideTotal() const
    {
        const auto& t = widthByChange() ? newTree : widthByBase() ? baseTree : tree;
        return t ? t->totalValue() : 0;
    }
    int64_t baseSideTotal() const
    {
        const auto& t = widthByBase() ? tree : baseTree;
        return t ? t->totalValue() : 0;
    }
    /// A comparison drawn by BASE's widths (sampleType in BASE's half of the types): its stacks
    /// that vanished show, and baseTree is then NEW's side.
    bool widthByBase() const { return isDiff() && sampleType >= diffTypes; }
    /// A comparison's type of the side not drawn.
    size_t otherSideType() const { return widthByBase() ? sampleType - diffTypes : sampleType + diffTypes; }

    /// source, or profile for a snapshot built without one (by hand, in tests).
    const std::shared_ptr<const model::Profile>& sourceProfile() const { return source ? source : profile; }

    /// The filter of view over this snapshot's symbols (for tables that must agree with tree).
    model::StackFilter filter() const;

    /// Name of the sample type ("cpu"); empty when the profile has none.
    std::string_view typeName() const;
    /// Unit of the sample type ("nanoseconds").
    std::string_view unit() const;
};

/// Receives a first snapshot of a big profile whose tree is a preview (CallTree::omittedBelow():
/// the nodes narrower than 1/previewParts of the total left out), made before the complete
/// tree, so that a window can paint the flame graph while the rest is grown. Called on the
/// thread that builds the snapshot.
using PreviewSink = std::function<void(std::shared_ptr<const ProfileSnapshot>)>;
/// The preview cut: nodes below 1/previewParts of the total. A window passes the flame graph's
/// width in device pixels (previewPartsFor): the nodes left out are narrower than a pixel
/// there, so the painted picture is the same as the complete tree's except for slivers of
/// merged narrow frames (and, for a preview estimated from part of the samples, widths within
/// a few percent). kPreviewParts, 8192, is wider than any screen the graph fills today.
inline constexpr int64_t kPreviewParts = 8192;
/// The cut for a flame graph devicePixels wide, from 1024 (a narrow window is widened soon
/// enough) to kPreviewParts.
int64_t previewPartsFor(double devicePixels);
/// Profiles with fewer frames (over all distinct stacks) get no preview: their tree is quick.
inline constexpr size_t kPreviewFromFrames = size_t(2) << 20;
/// A preview of more samples than this is estimated from about this many of them
/// (CallTree::buildSampledPreview), each standing for its share.
inline constexpr size_t kPreviewSamples = size_t(1) << 17;

/// Builds the symbol table and the call tree for sampleType (clamped to the profile's types).
/// Returns a Cancelled error when progress reports cancellation. With a preview sink, a big
/// profile's preview snapshot goes there first.
/// labels (group by, label filters) are applied first, the profile kept as the snapshot's source.
model::Result<std::shared_ptr<const ProfileSnapshot>> makeSnapshot(std::shared_ptr<const model::Profile> profile,
    size_t sampleType, std::string path = {}, model::Progress* progress = nullptr, const PreviewSink& preview = {},
    int64_t previewParts = kPreviewParts, const model::LabelView& labels = {},
    model::ProfileFormat format = model::ProfileFormat::Unknown);

/// Reads the file (its profile profileIndex, for files of several) and builds a snapshot for its
/// default sample type (with a preview first, as makeSnapshot), grouped as defaultLabelView says
/// (a whole-system capture by process). unwinder makes the unwinder of a perf.data's
/// `--call-graph dwarf` samples; empty, libdwfl's with the locator's default settings (the viewer
/// passes one with the user's debug and search directories and path maps).
model::Result<std::shared_ptr<const ProfileSnapshot>> loadSnapshot(const std::string& path,
    model::Progress* progress = nullptr, std::optional<size_t> profileIndex = std::nullopt, const PreviewSink& preview = {},
    int64_t previewParts = kPreviewParts, model::PerfStackUnwinderFactory unwinder = {});

/// The snapshot of a comparison (ProfileSnapshot::diffTypes): diff's sideBySide profile, NEW's
/// side of its default sample type drawn, BASE's side built beside it.
model::Result<std::shared_ptr<const ProfileSnapshot>> makeDiffSnapshot(model::DiffProfile diff, std::string path,
    model::Progress* progress = nullptr);

/// Reads the files and merges them into one profile as `go tool pprof a b` does (mergeProfiles),
/// then builds its snapshot (path: the first file's); one file is loadSnapshot's. An error names
/// the file that could not be read or merged. unwinder as loadSnapshot's.
model::Result<std::shared_ptr<const ProfileSnapshot>> loadMergedSnapshot(const std::vector<std::string>& paths,
    model::Progress* progress = nullptr, const PreviewSink& preview = {}, int64_t previewParts = kPreviewParts,
    model::PerfStackUnwinderFactory unwinder = {});

/// The same profile and symbols with the call tree of another sample type.
model::Result<std::shared_ptr<const ProfileSnapshot>> withSampleType(
    const ProfileSnapshot& snapshot, size_t sampleType, model::Progress* progress = nullptr);

/// The same profile and symbols with the call tree built for view (the profile made again from
/// the source when view.labels differ).
model::Result<std::shared_ptr<const ProfileSnapshot>> withView(
    const ProfileSnapshot& snapshot, const ViewOptions& view, model::Progress* progress = nullptr);

/// The same profile and symbols with the tree of one half of a sandwich view of function
/// (honouring the view's rules): Callers gives a bottom-up tree whose root's only child is the
/// function, Callees a top-down one.
model::Result<std::shared_ptr<const ProfileSnapshot>> withSandwich(const ProfileSnapshot& snapshot,
    model::SymbolId function, model::StackFilter::Sandwich half, model::Progress* progress = nullptr);

/// A snapshot of another source profile (e.g. the same one after symbolization) with the view
/// options (and labels) of an existing one.
model::Result<std::shared_ptr<const ProfileSnapshot>> withProfile(const ProfileSnapshot& snapshot,
    std::shared_ptr<const model::Profile> profile, model::Progress* progress = nullptr);

/// node of from's tree found again in to's (by the symbols on its path; e.g. after
/// symbolization, or the complete tree after a preview): the deepest node of to's tree still on
/// that path, or none when node is not one of from's.
model::NodeId mapNode(const ProfileSnapshot& from, const ProfileSnapshot& to, model::NodeId node);

} // namespace symflame::ui
