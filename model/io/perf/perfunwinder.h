// The seam between the perf.data reader and a DWARF unwinder: `perf record --call-graph dwarf`
// samples carry the user registers and a copy of the top of the user stack, and an unwinder
// that reads the binaries' call frame information turns them into the user callchain. The
// reader (model/) only describes the sample; the unwinder lives in symbolize/ (libdwfl), which
// finds the binaries, so the model does not depend on it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace symflame::model {

/// One executable mapping of the process, as perf's MMAP/MMAP2 records gave it.
struct PerfMapping {
    uint64_t start = 0, limit = 0, offset = 0; ///< [start, limit), file offset of start
    std::string file; ///< the path perf recorded ("[vdso]" and the like for special ones)
    std::string buildId; ///< lowercase hex; empty when perf recorded none
};

/// perf_sample_regs_abi values.
enum class PerfRegsAbi : uint64_t { None = 0, Abi32 = 1, Abi64 = 2 };

/// x86-64 user registers in perf's numbering (arch/x86/include/uapi/asm/perf_regs.h): bit i of
/// the attribute's sample_regs_user selects register i; the sample holds the selected ones in
/// that order.
enum PerfX86Reg : unsigned {
    kPerfRegAx, kPerfRegBx, kPerfRegCx, kPerfRegDx, kPerfRegSi, kPerfRegDi, kPerfRegBp, kPerfRegSp,
    kPerfRegIp, kPerfRegFlags, kPerfRegCs, kPerfRegSs, kPerfRegDs, kPerfRegEs, kPerfRegFs, kPerfRegGs,
    kPerfRegR8, kPerfRegR9, kPerfRegR10, kPerfRegR11, kPerfRegR12, kPerfRegR13, kPerfRegR14, kPerfRegR15,
};

struct PerfUnwindRequest {
    uint32_t pid = 0, tid = 0;
    /// The process's executable mappings when the sample was taken, by start address (data
    /// mappings left out: a file's text mapping places it unambiguously).
    std::span<const PerfMapping> mappings;
    /// Changes whenever the process's mappings do (a new mmap, a fork), so an unwinder can keep
    /// what it built from them until then.
    uint64_t mappingsGeneration = 0;
    PerfRegsAbi abi = PerfRegsAbi::None;
    uint64_t regsMask = 0; ///< sample_regs_user
    std::span<const uint64_t> regs; ///< one value per set bit of regsMask, lowest bit first
    std::span<const uint8_t> stack; ///< the stack copy's valid bytes (dyn_size), from the user SP up

    /// The register perf numbers reg, when the sample has it.
    bool reg(unsigned perfReg, uint64_t& value) const
    {
        if (perfReg >= 64 || !(regsMask >> perfReg & 1))
            return false;
        const size_t at = size_t(__builtin_popcountll(regsMask & ((uint64_t(1) << perfReg) - 1)));
        if (at >= regs.size())
            return false;
        value = regs[at];
        return true;
    }
};

/// Unwinds user stacks of one perf.data file (an instance keeps per-process state: use one per
/// file read and thread; readPerfData makes one for each thread it unwinds on).
class PerfStackUnwinder {
public:
    virtual ~PerfStackUnwinder() = default;
    /// The user callchain into frames (emptied first; its room is reused from sample to sample),
    /// innermost first: the sampled IP, then each caller's call site (its return address - 1,
    /// as pprof profiles have them; a signal frame's interrupted PC as it is). Empty when
    /// nothing could be unwound (then the reader keeps what perf recorded).
    virtual void unwind(const PerfUnwindRequest& request, std::vector<uint64_t>& frames) = 0;
};

/// Makes an unwinder for one read (LoadOptions carries one so copies of the options can load
/// files at the same time).
using PerfStackUnwinderFactory = std::function<std::unique_ptr<PerfStackUnwinder>()>;

} // namespace symflame::model
