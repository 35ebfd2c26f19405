#include "model/analysis/truncatedstacks.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

namespace symflame::model {

namespace {

bool isKernelFrame(const Profile& p, const Location& loc)
{
    if (loc.kind == FrameKind::Kernel)
        return true;
    const Mapping* m = p.mappingOf(loc);
    return m && p.str(m->file).starts_with("[kernel.kallsyms]");
}

std::string_view baseNameOf(std::string_view path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

enum class StackClass : uint8_t { NoUser, Rooted, Truncated, Marked };

struct Classified {
    StackClass cls = StackClass::NoUser;
    MappingId blamed; ///< the mapping where unwinding stopped (invalid: none)
};

// The stack's class and, when truncated, the mapping of its outermost user frame in a mapping.
Classified classify(const Profile& p, std::span<const LocationId> stack)
{
    Classified out;
    if (stack.empty())
        return out;
    size_t end = stack.size(); // frames [0, end) without the "[truncated]" root
    if (isTruncatedFrame(p, stack.back())) {
        out.cls = StackClass::Marked;
        --end;
    }
    // Outermost first: the first user frame decides; the first one in a mapping is blamed.
    bool decided = out.cls == StackClass::Marked;
    bool rooted = false;
    for (size_t i = end; i-- > 0;) {
        const Location& loc = p.locations[stack[i].index()];
        if (isKernelFrame(p, loc))
            continue;
        if (!decided) {
            decided = true;
            for (const Line& line : p.linesOf(loc))
                if (line.function.valid() && isThreadRootFunction(p.str(p.functions[line.function.index()].name)))
                    rooted = true;
            if (rooted)
                break;
            out.cls = StackClass::Truncated;
        }
        if (loc.mapping.valid() && loc.status != FrameStatus::AddressOnly) {
            out.blamed = loc.mapping;
            break;
        }
    }
    if (rooted)
        out.cls = StackClass::Rooted;
    return out;
}

bool hasTruncatedFrame(const Profile& p)
{
    for (size_t i = 0; i < p.locations.size(); ++i)
        if (isTruncatedFrame(p, LocationId(i)))
            return true;
    return false;
}

// A count the perf.data reader put in a numeric attribute; 0 when it is absent.
uint64_t countAttribute(const Profile& p, std::string_view key)
{
    const Label* a = p.findAttribute(key);
    return a && p.str(a->str).empty() && a->num > 0 ? uint64_t(a->num) : 0;
}

TruncatedStacks examine(const Profile& p, std::vector<Classified>* perStack)
{
    TruncatedStacks out;
    out.checked = checksTruncatedStacks(p) || hasTruncatedFrame(p);
    if (!out.checked)
        return out;
    out.callGraph = std::string(p.attribute("perf.call_graph"));
    out.stackCopySize = countAttribute(p, "perf.stack_copy_size");
    out.fullStackCopies = countAttribute(p, "perf.full_stack_copies");
    std::vector<Classified> classes(p.stackCount());
    for (size_t s = 0; s < classes.size(); ++s)
        classes[s] = classify(p, p.stack(StackId(s)));
    const int countType = p.findSampleType("samples");
    std::map<std::string, uint64_t> byFile; // the mapping's file ("" for none) -> samples
    for (size_t i = 0; i < p.sampleCount(); ++i) {
        const uint64_t n = countType >= 0 ? uint64_t(std::max<int64_t>(p.value(i, size_t(countType)), 0)) : 1;
        out.samples += n;
        const Classified& c = classes[p.sampleStacks[i].index()];
        if (c.cls != StackClass::Truncated && c.cls != StackClass::Marked)
            continue;
        out.truncated += n;
        byFile[c.blamed.valid() ? std::string(p.str(p.mappings[c.blamed.index()].file)) : std::string()] += n;
    }
    for (auto& [file, n] : byFile)
        out.binaries.push_back({ file, file.empty() ? std::string("(unmapped)") : std::string(baseNameOf(file)), n });
    std::stable_sort(out.binaries.begin(), out.binaries.end(),
        [](const TruncatedStacks::Binary& a, const TruncatedStacks::Binary& b) { return a.samples > b.samples; });
    if (perStack)
        *perStack = std::move(classes);
    return out;
}

std::string percent(uint64_t part, uint64_t whole)
{
    const double pct = whole ? 100.0 * double(part) / double(whole) : 0.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, pct < 10 ? "%.2f%%" : "%.1f%%", pct);
    return buf;
}

} // namespace

bool isThreadRootFunction(std::string_view name)
{
    if (const size_t at = name.find('@'); at != std::string_view::npos && at > 0)
        name = name.substr(0, at);
    if (name.starts_with("__GI_"))
        name.remove_prefix(5);
    static constexpr std::array<std::string_view, 17> kRoots { "_start", "__libc_start_main", "__libc_start_main_impl",
        "__libc_start_call_main", "_dl_start", "_dl_start_user", "clone", "__clone", "clone3", "__clone3",
        "__clone_internal", "start_thread", "thread_start", "runtime.goexit", "runtime.goexit.abi0", "runtime.mstart",
        "runtime.rt0_go" };
    return std::find(kRoots.begin(), kRoots.end(), name) != kRoots.end() || name == "runtime.rt0_go.abi0"
        || name == "runtime.mstart.abi0";
}

bool isTruncatedFrame(const Profile& p, LocationId location)
{
    if (location.index() >= p.locations.size())
        return false;
    const Location& loc = p.locations[location.index()];
    if (loc.mapping.valid() || loc.lineCount != 1)
        return false;
    const Line& line = p.linesOf(loc)[0];
    return line.function.valid() && p.str(p.functions[line.function.index()].name) == kTruncatedFrameName;
}

bool checksTruncatedStacks(const Profile& p)
{
    const std::string_view how = p.attribute("perf.call_graph");
    if (how == "dwarf") // judged only once an unwinder went over the stack copies
        return p.findAttribute("perf.unwound_samples") != nullptr;
    return how == "fp";
}

std::string TruncatedStacks::describe(size_t maxBinaries) const
{
    std::string out = percent(truncated, samples) + " of samples have truncated stacks";
    // Binaries only: stacks whose every user frame lies outside a mapping are in the share.
    std::vector<const Binary*> named;
    for (const Binary& b : binaries)
        if (!b.path.empty())
            named.push_back(&b);
    if (named.empty())
        return out;
    out += callGraph == "dwarf" ? "; unwinding stopped in: " : "; binaries without frame pointers: ";
    for (size_t i = 0; i < named.size(); ++i) {
        if (i == maxBinaries) {
            out += ", and " + std::to_string(named.size() - i) + " more";
            break;
        }
        out += (i ? ", " : "") + named[i]->name + " (" + percent(named[i]->samples, samples) + ")";
    }
    return out;
}

std::string TruncatedStacks::advice() const
{
    if (callGraph != "dwarf")
        return std::string(kAdvice);
    if (fullStackCopies > 0) {
        std::string out = percent(fullStackCopies, samples) + " of samples filled their stack copy";
        if (stackCopySize > 0)
            out += " of " + std::to_string(stackCopySize) + " bytes";
        return out + ": record with a larger one (perf record --call-graph dwarf,65528, the most perf takes)";
    }
    return "unwinding needs each binary on the stack and its unwind tables (.eh_frame or .debug_frame): see "
           "which were not found under Binaries (symflame info), or record with frame pointers (-g) for code "
           "without them";
}

TruncatedStacks findTruncatedStacks(const Profile& profile)
{
    return examine(profile, nullptr);
}

TruncatedStacks markTruncatedStacks(Profile& p)
{
    std::vector<Classified> classes;
    TruncatedStacks out = examine(p, &classes);
    if (!out.any())
        return out;
    // The one "[truncated]" location, and per truncated stack the same stack under it.
    LocationId root;
    for (size_t i = 0; i < p.locations.size() && !root.valid(); ++i)
        if (isTruncatedFrame(p, LocationId(i)))
            root = LocationId(i);
    if (!root.valid())
        root = p.addNamedFrame(kTruncatedFrameName, FrameKind::Unknown);
    // Only stacks samples use (those moved by an earlier run stay in the table, unused).
    const size_t stacks = p.stackCount();
    std::vector<uint8_t> used(stacks, 0);
    for (const StackId id : p.sampleStacks)
        used[id.index()] = 1;
    std::vector<StackId> moved(stacks);
    std::vector<LocationId> frames;
    for (size_t s = 0; s < stacks; ++s) {
        if (classes[s].cls != StackClass::Truncated || !used[s])
            continue;
        const auto stack = p.stack(StackId(s));
        frames.assign(stack.begin(), stack.end());
        frames.push_back(root);
        moved[s] = p.internStack(frames);
        ++out.stacksMarked;
    }
    for (StackId& id : p.sampleStacks)
        if (moved[id.index()].valid())
            id = moved[id.index()];
    p.finishBuilding();
    return out;
}

} // namespace symflame::model
