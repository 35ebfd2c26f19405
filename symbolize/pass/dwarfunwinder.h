// Unwinds `perf record --call-graph dwarf` samples with elfutils' libdwfl: per process, a Dwfl
// with the process's binaries (found through the DebugInfoLocator by build ID and path) as
// modules, and thread state attached whose registers are the sample's user registers and whose
// memory is the sample's stack copy (and, outside it, the binaries' loaded segments); the frames
// come from the binaries' .eh_frame (or .debug_frame) call frame information.
#pragma once

#include "model/io/perf/perfunwinder.h"
#include "symbolize/locate/debuginfolocator.h"

#include <memory>

namespace symflame::symbolize {

/// An unwinder for one perf.data read (x86-64 samples; others give nothing, so the reader keeps
/// perf's callchain). locator finds the binaries; it must outlive the unwinder.
std::unique_ptr<model::PerfStackUnwinder> makeDwarfUnwinder(std::shared_ptr<const DebugInfoLocator> locator);

/// What LoadOptions::perfUnwinder takes: each call makes an unwinder with a locator of options
/// (the search directories are indexed when the first binary is looked up).
model::PerfStackUnwinderFactory dwarfUnwinderFactory(LocatorOptions options = {});

} // namespace symflame::symbolize
