// Loading a profile and deriving what the views need from it, with progress split over stages.
#include "ui/profilesnapshot.h"

#include "model/io/profileio.h"
#include "symbolize/pass/dwarfunwinder.h"

#include <algorithm>
#include <cmath>

namespace symflame::ui {

using namespace symflame::model;

std::string_view ProfileSnapshot::typeName() const
{
    if (!profile || sampleType >= profile->sampleTypes.size())
        return {};
    return profile->str(profile->sampleTypes[sampleType].type);
}

std::string_view ProfileSnapshot::unit() const
{
    if (!profile || sampleType >= profile->sampleTypes.size())
        return {};
    return profile->str(profile->sampleTypes[sampleType].unit);
}

namespace {

Error cancelled(const std::string& path)
{
    return makeError(ErrorCode::Cancelled, "loading was cancelled", path);
}

Result<std::shared_ptr<const CallTree>> buildTree(const Profile& profile, const SymbolTable& symbols,
    const ViewOptions& view, const std::string& path, Progress* progress, uint64_t begin)
{
    StageProgress stage(progress, begin, StageProgress::kScale);
    stage.setStage("building the call tree");
    const StackFilter filter = StackFilter::build(profile, symbols, view.rules, view.collapseRecursion);
    auto tree = std::make_shared<const CallTree>(profile.sampleTypes.empty()
            ? CallTree()
            : CallTree::build(profile, symbols, view.sampleType, view.direction, &stage, &filter));
    if (stage.isCancelled())
        return cancelled(path);
    return std::shared_ptr<const CallTree>(std::move(tree));
}

/// A comparison's BASE side beside snap's tree: the same view over type sampleType + diffTypes,
/// and the matching of the nodes. Nothing for a single profile.
Status attachBase(ProfileSnapshot& snap, Progress* progress)
{
    snap.baseTree.reset();
    snap.baseMatch.reset();
    snap.newTree.reset();
    snap.newMatch.reset();
    if (!snap.isDiff() || !snap.tree || snap.profile->sampleTypes.size() != 2 * snap.diffTypes)
        return Status::success();
    if (snap.view.widthByChange && !snap.widthByBase()) {
        // Drawn by the size of the change: NEW's side as built stays beside it.
        const StackFilter filter = snap.filter();
        snap.newTree = snap.tree;
        snap.tree = std::make_shared<const CallTree>(CallTree::buildOfChange(*snap.profile, *snap.symbols,
            snap.sampleType, snap.sampleType + snap.diffTypes, snap.view.direction, progress, &filter));
        if (progress && progress->isCancelled())
            return cancelled(snap.path);
        snap.newMatch = std::make_shared<const std::vector<NodeId>>(matchNodes(*snap.tree, *snap.newTree, *snap.symbols));
    }
    ViewOptions baseView = snap.view;
    baseView.sampleType = snap.otherSideType();
    auto base = buildTree(*snap.profile, *snap.symbols, baseView, snap.path, progress, 0);
    if (!base)
        return base.error();
    snap.baseTree = std::move(base).value();
    snap.baseMatch = std::make_shared<const std::vector<NodeId>>(matchNodes(*snap.tree, *snap.baseTree, *snap.symbols));
    return Status::success();
}

} // namespace

int64_t previewPartsFor(double devicePixels)
{
    if (!(devicePixels > 1024)) // NaN too
        return 1024;
    return devicePixels >= double(kPreviewParts) ? kPreviewParts : static_cast<int64_t>(std::ceil(devicePixels));
}

Result<std::shared_ptr<const ProfileSnapshot>> makeSnapshot(std::shared_ptr<const Profile> profile, size_t sampleType,
    std::string path, Progress* progress, const PreviewSink& preview, int64_t previewParts, const LabelView& labels,
    ProfileFormat format)
{
    previewParts = std::clamp<int64_t>(previewParts, 1, kPreviewParts);
    auto snap = std::make_shared<ProfileSnapshot>();
    snap->path = std::move(path);
    snap->format = format;
    snap->source = profile;
    snap->view.labels = labels;
    if (!labels.empty()) {
        StageProgress stage(progress, 700, 720);
        stage.setStage("grouping by label");
        auto applied = applyLabelView(*profile, labels, &stage);
        if (!applied)
            return applied.error().code == ErrorCode::Cancelled ? cancelled(snap->path) : applied.error();
        profile = std::make_shared<const Profile>(std::move(applied).value());
    }
    snap->sampleType = profile->sampleTypes.empty() ? 0 : std::min(sampleType, profile->sampleTypes.size() - 1);
    {
        StageProgress stage(progress, 700, 800);
        stage.setStage("collecting symbols");
        snap->symbols = std::make_shared<const SymbolTable>(SymbolTable::build(*profile));
        if (stage.isCancelled())
            return cancelled(snap->path);
    }
    snap->view.sampleType = snap->sampleType;
    const int64_t total = profile->sampleTypes.empty() ? 0 : profile->totalValue(snap->sampleType);
    if (preview && profile->stackLocations.size() >= kPreviewFromFrames && total >= previewParts) {
        StageProgress stage(progress, 800, 850);
        stage.setStage("building a first view");
        auto first = std::make_shared<ProfileSnapshot>(*snap);
        first->profile = profile;
        // From about kPreviewSamples of the samples: a first view in a fraction of the time.
        const auto every = static_cast<uint32_t>(std::clamp<size_t>(profile->sampleCount() / kPreviewSamples, 1, 1u << 16));
        first->tree = std::make_shared<const CallTree>(CallTree::buildSampledPreview(
            *profile, *snap->symbols, snap->sampleType, snap->view.direction, total / previewParts, every));
        if (stage.isCancelled())
            return cancelled(snap->path);
        preview(std::move(first));
    }
    auto tree = buildTree(*profile, *snap->symbols, snap->view, snap->path, progress, 850);
    if (!tree)
        return tree.error();
    snap->tree = std::move(tree).value();
    if (const Status based = attachBase(*snap, progress); !based)
        return based.error();
    snap->profile = std::move(profile);
    return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
}

Result<std::shared_ptr<const ProfileSnapshot>> loadSnapshot(const std::string& path, Progress* progress,
    std::optional<size_t> profileIndex, const PreviewSink& preview, int64_t previewParts, PerfStackUnwinderFactory unwinder)
{
    std::shared_ptr<const Profile> profile;
    ProfileFormat format = ProfileFormat::Unknown;
    {
        StageProgress stage(progress, 0, 700);
        stage.setStage("reading");
        LoadOptions options;
        options.profileIndex = profileIndex;
        options.perfUnwinder = unwinder ? std::move(unwinder) : symbolize::dwarfUnwinderFactory();
        auto loaded = loadProfile(path, options, &stage, &format);
        if (!loaded) {
            if (stage.isCancelled())
                return cancelled(path);
            return loaded.error().withPath(path);
        }
        if (stage.isCancelled())
            return cancelled(path);
        profile = std::make_shared<const Profile>(std::move(loaded).value());
    }
    const size_t type = profile->defaultSampleType;
    const LabelView labels = defaultLabelView(*profile);
    return makeSnapshot(std::move(profile), type, path, progress, preview, previewParts, labels, format);
}

Result<std::shared_ptr<const ProfileSnapshot>> loadMergedSnapshot(const std::vector<std::string>& paths,
    Progress* progress, const PreviewSink& preview, int64_t previewParts, PerfStackUnwinderFactory unwinder)
{
    if (paths.size() == 1)
        return loadSnapshot(paths[0], progress, std::nullopt, preview, previewParts, std::move(unwinder));
    std::shared_ptr<const Profile> profile;
    {
        StageProgress stage(progress, 0, 700);
        LoadOptions options;
        options.perfUnwinder = unwinder ? std::move(unwinder) : symbolize::dwarfUnwinderFactory();
        auto loaded = loadProfiles(paths, options, &stage);
        if (stage.isCancelled())
            return cancelled(paths.empty() ? std::string() : paths[0]);
        if (!loaded)
            return loaded.error();
        profile = std::make_shared<const Profile>(std::move(loaded).value());
    }
    const size_t type = profile->defaultSampleType;
    return makeSnapshot(std::move(profile), type, paths[0], progress, preview, previewParts);
}

Result<std::shared_ptr<const ProfileSnapshot>> makeDiffSnapshot(DiffProfile diff, std::string path, Progress* progress)
{
    const size_t n = diff.profile.sampleTypes.size();
    const size_t type = n == 0 ? 0 : std::min(diff.profile.defaultSampleType, n - 1);
    auto sides = std::make_shared<const Profile>(sideBySide(std::move(diff)));
    auto made = makeSnapshot(sides, type, std::move(path), progress);
    if (!made)
        return made.error();
    auto snap = std::make_shared<ProfileSnapshot>(**made);
    snap->diffTypes = n;
    if (const Status based = attachBase(*snap, progress); !based)
        return based.error();
    return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
}

Result<std::shared_ptr<const ProfileSnapshot>> withSampleType(
    const ProfileSnapshot& snapshot, size_t sampleType, Progress* progress)
{
    ViewOptions view = snapshot.view;
    view.sampleType = sampleType;
    return withView(snapshot, view, progress);
}

Result<std::shared_ptr<const ProfileSnapshot>> withView(
    const ProfileSnapshot& snapshot, const ViewOptions& view, Progress* progress)
{
    auto snap = std::make_shared<ProfileSnapshot>(snapshot);
    snap->view = view;
    if (view.labels != snapshot.view.labels) {
        // Another grouping or label filter: the profile (and its symbols) from the source.
        const auto& source = snapshot.sourceProfile();
        StageProgress stage(progress, 0, 400);
        stage.setStage(view.labels.empty() ? "ungrouping" : "grouping by label");
        std::shared_ptr<const Profile> profile = source;
        if (!view.labels.empty()) {
            auto applied = applyLabelView(*source, view.labels, &stage);
            if (!applied)
                return applied.error().code == ErrorCode::Cancelled ? cancelled(snap->path) : applied.error();
            profile = std::make_shared<const Profile>(std::move(applied).value());
        }
        snap->symbols = std::make_shared<const SymbolTable>(SymbolTable::build(*profile));
        snap->profile = std::move(profile);
        snap->source = source;
        if (stage.isCancelled())
            return cancelled(snap->path);
    }
    if (snap->profile->sampleTypes.empty())
        return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
    snap->sampleType = std::min(view.sampleType, snap->profile->sampleTypes.size() - 1);
    snap->view.sampleType = snap->sampleType;
    auto tree = buildTree(*snap->profile, *snap->symbols, snap->view, snap->path, progress, 0);
    if (!tree)
        return tree.error();
    snap->tree = std::move(tree).value();
    if (const Status based = attachBase(*snap, progress); !based)
        return based.error();
    return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
}

Result<std::shared_ptr<const ProfileSnapshot>> withProfile(
    const ProfileSnapshot& snapshot, std::shared_ptr<const Profile> profile, Progress* progress)
{
    auto snap = std::make_shared<ProfileSnapshot>(snapshot);
    snap->source = profile;
    if (!snap->view.labels.empty()) {
        StageProgress stage(progress, 0, 100);
        stage.setStage("grouping by label");
        auto applied = applyLabelView(*profile, snap->view.labels, &stage);
        if (!applied)
            return applied.error().code == ErrorCode::Cancelled ? cancelled(snap->path) : applied.error();
        profile = std::make_shared<const Profile>(std::move(applied).value());
    }
    {
        StageProgress stage(progress, 0, 300);
        stage.setStage("collecting symbols");
        snap->symbols = std::make_shared<const SymbolTable>(SymbolTable::build(*profile));
        if (stage.isCancelled())
            return cancelled(snap->path);
    }
    auto tree = buildTree(*profile, *snap->symbols, snap->view, snap->path, progress, 300);
    if (!tree)
        return tree.error();
    snap->tree = std::move(tree).value();
    if (const Status based = attachBase(*snap, progress); !based)
        return based.error();
    snap->profile = std::move(profile);
    return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
}

Result<std::shared_ptr<const ProfileSnapshot>> withSandwich(
    const ProfileSnapshot& snapshot, SymbolId function, StackFilter::Sandwich half, Progress* progress)
{
    auto snap = std::make_shared<ProfileSnapshot>(snapshot);
    snap->view.direction
        = half == StackFilter::Sandwich::Callers ? CallTree::Direction::BottomUp : CallTree::Direction::TopDown;
    const StackFilter filter = StackFilter::build(
        *snap->profile, *snap->symbols, snap->view.rules, snap->view.collapseRecursion, function, half);
    snap->tree = std::make_shared<const CallTree>(
        CallTree::build(*snap->profile, *snap->symbols, snap->sampleType, snap->view.direction, progress, &filter));
    snap->baseTree.reset();
    snap->baseMatch.reset();
    if (snap->isDiff()) { // the BASE side of the same half
        snap->baseTree = std::make_shared<const CallTree>(CallTree::build(*snap->profile, *snap->symbols,
            snap->otherSideType(), snap->view.direction, progress, &filter));
        snap->baseMatch
            = std::make_shared<const std::vector<NodeId>>(matchNodes(*snap->tree, *snap->baseTree, *snap->symbols));
    }
    if (progress && progress->isCancelled())
        return cancelled(snap->path);
    return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
}

StackFilter ProfileSnapshot::filter() const
{
    return StackFilter::build(*profile, *symbols, view.rules, view.collapseRecursion);
}

NodeId mapNode(const ProfileSnapshot& from, const ProfileSnapshot& to, NodeId node)
{
    if (!node.valid() || node.index() >= from.tree->size())
        return {};
    const CallTree& oldTree = *from.tree;
    const CallTree& newTree = *to.tree;
    const SymbolTable& oldSymbols = *from.symbols;
    const SymbolTable& newSymbols = *to.symbols;
    const bool topDown = newTree.direction() == CallTree::Direction::TopDown;
    // The symbols of the path in the new table: through each old symbol's exemplar location,
    // whose inline chain may have grown from one unsymbolized frame to several.
    std::vector<SymbolId> wanted;
    for (const NodeId step : oldTree.pathTo(node)) {
        const Symbol& sym = oldSymbols.symbol(oldTree.node(step).symbol);
        if (sym.exemplar.index() >= to.profile->locations.size())
            return {};
        const auto frames = newSymbols.frames(sym.exemplar);
        if (sym.symbolized && sym.lineIndex < frames.size()) {
            wanted.push_back(frames[sym.lineIndex]);
        } else if (topDown) {
            wanted.insert(wanted.end(), frames.rbegin(), frames.rend());
        } else {
            wanted.insert(wanted.end(), frames.begin(), frames.end());
        }
    }
    NodeId cur = newTree.root();
    for (const SymbolId s : wanted) {
        NodeId next;
        for (const NodeId c : newTree.children(cur))
            if (newTree.node(c).symbol == s)
                next = c;
        if (!next.valid())
            break; // the deepest node still on the path
        cur = next;
    }
    return cur;
}

} // namespace symflame::ui
