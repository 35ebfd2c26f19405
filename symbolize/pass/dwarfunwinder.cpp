// The libdwfl unwinder. One Dwfl per process: its modules are the process's binaries, reported
// again only when the reader says the process's mappings changed (libdwfl keeps a re-reported
// module, with its parsed CFI, when its name and range are the same). libdwfl asks for the
// thread's initial registers and for memory through the Dwfl_Thread_Callbacks below, which
// answer from the sample being unwound (m_request).
#include "symbolize/pass/dwarfunwinder.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace symflame::symbolize {

namespace {

constexpr size_t kMaxFrames = 1024;

// x86-64 DWARF register numbers 0..16 (the psABI's order) as perf numbers them.
constexpr unsigned kDwarfToPerfX86[17] = {
    model::kPerfRegAx, model::kPerfRegDx, model::kPerfRegCx, model::kPerfRegBx,
    model::kPerfRegSi, model::kPerfRegDi, model::kPerfRegBp, model::kPerfRegSp,
    model::kPerfRegR8, model::kPerfRegR9, model::kPerfRegR10, model::kPerfRegR11,
    model::kPerfRegR12, model::kPerfRegR13, model::kPerfRegR14, model::kPerfRegR15,
    model::kPerfRegIp,
};
constexpr int kDwarfRip = 16;

// A binary's loadable segments: enough to place it where a mapping says and to read its bytes.
struct LoadSegment {
    uint64_t offset = 0, vaddr = 0, filesz = 0;
};
struct LocalBinary {
    bool usable = false;
    std::string path; ///< the local file
    std::string debugPath; ///< a separate file with the DWARF (.debug_frame), or empty
    bool executable = false; ///< ET_EXEC: placed where its headers say
    std::vector<LoadSegment> segments;
};

bool readSegments(const std::string& path, LocalBinary& b)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    bool ok = false;
    GElf_Ehdr eh;
    size_t n = 0;
    if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) && elf_getphdrnum(elf, &n) == 0) {
        b.executable = eh.e_type == ET_EXEC;
        for (size_t i = 0; i < n; ++i) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD)
                b.segments.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
        }
        ok = !b.segments.empty();
    }
    if (elf)
        elf_end(elf);
    close(fd);
    return ok;
}

// Whether an ELF file has a non-empty .debug_frame section (or GNU's compressed .zdebug_frame),
// read from the section headers alone.
bool hasDebugFrame(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    bool found = false;
    size_t names = 0;
    if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &names) == 0) {
        for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !found; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
            found = name && (std::strcmp(name, ".debug_frame") == 0 || std::strcmp(name, ".zdebug_frame") == 0)
                && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
        }
    }
    if (elf)
        elf_end(elf);
    close(fd);
    return found;
}

class DwarfUnwinder final : public model::PerfStackUnwinder {
public:
    explicit DwarfUnwinder(std::shared_ptr<const DebugInfoLocator> locator) : m_locator(std::move(locator))
    {
        elf_version(EV_CURRENT);
    }
    ~DwarfUnwinder() override
    {
        for (auto& [pid, p] : m_processes)
            if (p.dwfl)
                dwfl_end(p.dwfl);
    }

    void unwind(const model::PerfUnwindRequest& request, std::vector<uint64_t>& frames) override;

private:
    struct Placed {
        const LocalBinary* binary = nullptr;
        uint64_t bias = 0;
        bool operator==(const Placed&) const = default;
    };
    struct ProcessState {
        Dwfl* dwfl = nullptr;
        uint64_t generation = 0;
        bool attached = false;
        std::vector<Placed> placed; ///< the Dwfl's modules
    };

    std::vector<Placed> place(const model::PerfUnwindRequest& request);
    bool report(ProcessState& p, const model::PerfUnwindRequest& request);
    const LocalBinary& binaryOf(const model::PerfMapping& m);
    bool readMemory(Dwfl* dwfl, uint64_t addr, uint64_t& value) const;

    static pid_t nextThread(Dwfl*, void* arg, void** threadArg);
    static bool getThread(Dwfl*, pid_t tid, void* arg, void** threadArg);
    static bool memoryRead(Dwfl* dwfl, Dwarf_Addr addr, Dwarf_Word* result, void* arg);
    static bool setInitialRegisters(Dwfl_Thread* thread, void* threadArg);
    static int findDebuginfo(Dwfl_Module* mod, void** userdata, const char*, Dwarf_Addr, const char*, const char*,
        GElf_Word, char** debuginfoFileName);
    static int onFrame(Dwfl_Frame* frame, void* arg);

    std::shared_ptr<const DebugInfoLocator> m_locator;
    std::unordered_map<uint32_t, ProcessState> m_processes;
    std::map<std::pair<std::string, std::string>, LocalBinary> m_binaries; // (recorded path, build ID)
    const model::PerfUnwindRequest* m_request = nullptr; // the sample being unwound
    uint64_t m_sp = 0;
    std::vector<uint64_t>* m_ips = nullptr; // the frames of the sample being unwound

    static constexpr Dwfl_Callbacks kCallbacks = {
        nullptr, // find_elf: every module is reported with its file
        &DwarfUnwinder::findDebuginfo,
        nullptr,
        nullptr,
    };
    static constexpr Dwfl_Thread_Callbacks kThreadCallbacks = {
        &DwarfUnwinder::nextThread,
        &DwarfUnwinder::getThread,
        &DwarfUnwinder::memoryRead,
        &DwarfUnwinder::setInitialRegisters,
        nullptr,
        nullptr,
    };
};

const LocalBinary& DwarfUnwinder::binaryOf(const model::PerfMapping& m)
{
    auto [it, added] = m_binaries.try_emplace({m.file, m.buildId});
    LocalBinary& b = it->second;
    if (!added)
        return b;
    // The locator says which mappings have no file to look for ([heap], //anon, the kernel: not
    // applicable); it finds the vDSO's copy in perf's build-ID cache, whose CFI unwinds through
    // __vdso_clock_gettime and friends.
    if (m.file.empty() || m.file.starts_with("/memfd:"))
        return b;
    const LocateResult r = m_locator->locate(m.file, m.buildId);
    if (r.status != LocateStatus::Found || r.binaryPath.empty())
        return b;
    b.path = r.binaryPath;
    b.usable = readSegments(b.path, b);
    // A separate debug file only when it holds CFI (.debug_frame: code built without unwind
    // tables, whose .eh_frame has only the C runtime's): libdwfl tries .eh_frame first but asks
    // for the DWARF at every stack's outermost frame (where .eh_frame says there is no caller),
    // and opening a debug file decompresses all its sections, once per process unwound (libc's,
    // which has no .debug_frame: about 0.05 s each time).
    if (r.dwarf && !r.dwarfPath.empty() && r.dwarfPath != r.binaryPath && hasDebugFrame(r.dwarfPath))
        b.debugPath = r.dwarfPath;
    return b;
}

// Places the process's binaries: each where its first executable mapping puts it (the segment
// that holds the mapping's file offset gives the load bias). Binaries not found are left out.
std::vector<DwarfUnwinder::Placed> DwarfUnwinder::place(const model::PerfUnwindRequest& request)
{
    std::vector<Placed> out;
    std::unordered_set<std::string> seen;
    for (const model::PerfMapping& m : request.mappings) {
        const LocalBinary& b = binaryOf(m);
        if (!b.usable || seen.contains(b.path))
            continue;
        const LoadSegment* seg = nullptr;
        for (const LoadSegment& s : b.segments)
            if ((s.offset & ~uint64_t(0xfff)) <= m.offset && m.offset < s.offset + std::max<uint64_t>(s.filesz, 1)) {
                seg = &s;
                break;
            }
        if (!seg)
            continue;
        seen.insert(b.path);
        out.push_back({&b, b.executable ? 0 : m.start - (seg->vaddr + m.offset - seg->offset)});
    }
    return out;
}

// A Dwfl whose modules are the process's binaries, with the thread callbacks attached. Made
// again only when the binaries or their places changed (libdwfl 0.188 loses its address lookup
// when modules are reported again into a Dwfl, so it is not reused across such a change).
bool DwarfUnwinder::report(ProcessState& p, const model::PerfUnwindRequest& request)
{
    p.generation = request.mappingsGeneration;
    std::vector<Placed> placed = place(request);
    if (p.dwfl && placed == p.placed)
        return p.attached;
    if (p.dwfl)
        dwfl_end(p.dwfl);
    p = ProcessState();
    p.generation = request.mappingsGeneration;
    p.placed = std::move(placed);
    if (p.placed.empty())
        return false;
    p.dwfl = dwfl_begin(&kCallbacks);
    if (!p.dwfl)
        return false;
    dwfl_report_begin(p.dwfl);
    bool any = false;
    for (const Placed& pl : p.placed) {
        Dwfl_Module* mod = dwfl_report_elf(p.dwfl, pl.binary->path.c_str(), pl.binary->path.c_str(), -1, pl.bias, false);
        if (!mod)
            continue;
        void** userdata = nullptr;
        dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        if (userdata) // for findDebuginfo; m_binaries' nodes do not move
            *userdata = const_cast<LocalBinary*>(pl.binary);
        any = true;
    }
    dwfl_report_end(p.dwfl, nullptr, nullptr);
    if (any)
        p.attached = dwfl_attach_state(p.dwfl, nullptr, pid_t(request.pid), &kThreadCallbacks, this);
    return p.attached;
}

void DwarfUnwinder::unwind(const model::PerfUnwindRequest& request, std::vector<uint64_t>& frames)
{
    frames.clear();
    uint64_t ip = 0, sp = 0;
    if (request.abi != model::PerfRegsAbi::Abi64 || !request.reg(model::kPerfRegIp, ip)
        || !request.reg(model::kPerfRegSp, sp) || request.stack.empty())
        return;
    ProcessState& p = m_processes[request.pid];
    if (p.generation != request.mappingsGeneration) // the reader's generations start at 1
        report(p, request);
    if (!p.attached)
        return;
    m_request = &request;
    m_ips = &frames;
    m_sp = sp;
    // The tid libdwfl is asked for is the process's (one state per Dwfl): each call unwinds
    // the sample at hand, whichever thread it is from.
    dwfl_getthread_frames(p.dwfl, pid_t(request.pid ? request.pid : 1), &DwarfUnwinder::onFrame, this);
    m_request = nullptr;
    m_ips = nullptr;
}

bool DwarfUnwinder::readMemory(Dwfl* dwfl, uint64_t addr, uint64_t& value) const
{
    const auto stack = m_request->stack;
    if (addr >= m_sp && addr - m_sp <= stack.size() && stack.size() - (addr - m_sp) >= 8) {
        std::memcpy(&value, stack.data() + (addr - m_sp), 8);
        return true;
    }
    // Outside the stack copy: the bytes the binary mapped there (constants, pointers in .data
    // as the file has them).
    Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
    if (!mod)
        return false;
    Dwarf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(mod, &bias);
    size_t n = 0, rawSize = 0;
    if (!elf || elf_getphdrnum(elf, &n) != 0)
        return false;
    const char* raw = elf_rawfile(elf, &rawSize);
    if (!raw)
        return false;
    const uint64_t vaddr = addr - bias;
    for (size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, int(i), &ph) || ph.p_type != PT_LOAD)
            continue;
        if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz || ph.p_filesz - (vaddr - ph.p_vaddr) < 8)
            continue;
        const uint64_t at = ph.p_offset + (vaddr - ph.p_vaddr);
        if (at > rawSize || rawSize - at < 8)
            return false;
        std::memcpy(&value, raw + at, 8);
        return true;
    }
    return false;
}

// The one thread of a Dwfl: its argument, the unwinder, is the thread's too.
pid_t DwarfUnwinder::nextThread(Dwfl* dwfl, void* arg, void** threadArg)
{
    if (*threadArg)
        return 0;
    *threadArg = arg;
    return dwfl_pid(dwfl);
}

bool DwarfUnwinder::getThread(Dwfl*, pid_t, void* arg, void** threadArg)
{
    *threadArg = arg;
    return true;
}

bool DwarfUnwinder::memoryRead(Dwfl* dwfl, Dwarf_Addr addr, Dwarf_Word* result, void* arg)
{
    const auto* self = static_cast<const DwarfUnwinder*>(arg);
    uint64_t v = 0;
    if (!self->m_request || !self->readMemory(dwfl, addr, v))
        return false;
    *result = v;
    return true;
}

bool DwarfUnwinder::setInitialRegisters(Dwfl_Thread* thread, void* threadArg)
{
    const auto* self = static_cast<const DwarfUnwinder*>(threadArg);
    if (!self || !self->m_request)
        return false;
    // Registers the sample has, in DWARF numbering; those it lacks stay undefined (a frame
    // that needs one ends the unwinding). The sample's values are in the order of the mask's
    // bits.
    const model::PerfUnwindRequest& r = *self->m_request;
    uint64_t byPerf[64];
    uint64_t have = 0;
    size_t k = 0;
    for (uint64_t m = r.regsMask; m && k < r.regs.size(); m &= m - 1) {
        const unsigned bit = unsigned(__builtin_ctzll(m));
        byPerf[bit] = r.regs[k++];
        have |= uint64_t(1) << bit;
    }
    Dwarf_Word values[kDwarfRip + 1];
    bool all = true;
    for (int dwarf = 0; dwarf <= kDwarfRip; ++dwarf) {
        const unsigned perf = kDwarfToPerfX86[dwarf];
        all = all && (have >> perf & 1);
        values[dwarf] = (have >> perf & 1) ? byPerf[perf] : 0;
    }
    if (all) // the usual case: one call for the lot
        return dwfl_thread_state_registers(thread, 0, kDwarfRip + 1, values);
    for (int dwarf = 0; dwarf <= kDwarfRip; ++dwarf)
        if ((have >> kDwarfToPerfX86[dwarf] & 1) && !dwfl_thread_state_registers(thread, dwarf, 1, &values[dwarf]))
            return false;
    return true;
}

int DwarfUnwinder::findDebuginfo(Dwfl_Module*, void** userdata, const char*, Dwarf_Addr, const char*, const char*,
    GElf_Word, char** debuginfoFileName)
{
    // The separate debug file the locator found (for .debug_frame); libdwfl takes the fd.
    const auto* b = userdata ? static_cast<const LocalBinary*>(*userdata) : nullptr;
    if (!b || b->debugPath.empty())
        return -1;
    const int fd = open(b->debugPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && debuginfoFileName)
        *debuginfoFileName = strdup(b->debugPath.c_str());
    return fd;
}

int DwarfUnwinder::onFrame(Dwfl_Frame* frame, void* arg)
{
    auto* self = static_cast<DwarfUnwinder*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false; // the innermost frame, or one a signal interrupted: its PC is exact
    if (!dwfl_frame_pc(frame, &pc, &activation) || pc == 0)
        return DWARF_CB_ABORT;
    self->m_ips->push_back(activation ? pc : pc - 1); // a caller's return address: its call site
    return self->m_ips->size() < kMaxFrames ? DWARF_CB_OK : DWARF_CB_ABORT;
}

} // namespace

std::unique_ptr<model::PerfStackUnwinder> makeDwarfUnwinder(std::shared_ptr<const DebugInfoLocator> locator)
{
    return std::make_unique<DwarfUnwinder>(std::move(locator));
}

model::PerfStackUnwinderFactory dwarfUnwinderFactory(LocatorOptions options)
{
    return [options = std::move(options)]() -> std::unique_ptr<model::PerfStackUnwinder> {
        auto locator = std::make_shared<DebugInfoLocator>(options);
        locator->buildIndex();
        return makeDwarfUnwinder(std::move(locator));
    };
}

} // namespace symflame::symbolize
