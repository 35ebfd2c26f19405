// `symflame symbolize IN -o OUT`: loads a profile, symbolizes its native frames with the
// symbolize/ library (local ELF/DWARF, debug directories, search paths, path maps) and writes
// the result as pprof, printing one report line (or a JSON object) per mapping. Qt-free.
#pragma once

namespace symflame::app {

/// Runs `symflame symbolize`; args are the arguments after the command name. Returns the exit
/// code: 0 written, 2 unreadable input or unwritable output (or OUT names IN), 64 usage.
int runSymbolizeCommand(int argc, char** argv);

} // namespace symflame::app
