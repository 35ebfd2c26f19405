// The worker process's side of isolation (isolatedengine.h): `symflame --symbolize-worker` reads
// messages (protocol.h) on its stdin and answers on its stdout, with the engine openEngine()
// picks, so that the answers are the in-process ones.
#pragma once

namespace symflame::symbolize {

/// Reads messages from in, answers on out, until in ends; then exits the process with status 0
/// (without destructors). Returns 3 for a malformed message.
int runSymbolizeWorker(int in, int out);

} // namespace symflame::symbolize
