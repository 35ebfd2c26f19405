// `symflame debuginfo fetch BUILDID [--kind debuginfo|executable]`: fetches one file from the
// debuginfod servers (or the client cache), verifies it and prints its local path.
#pragma once

namespace symflame::app {

int runDebuginfoCommand(int argc, char** argv);

} // namespace symflame::app
