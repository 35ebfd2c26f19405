// `symflame render FILE -o OUT.png`: the flame graph painted into an image by the same
// FlameGraphPainter the widget uses, on the offscreen platform (no display needed).
#pragma once

namespace symflame::app {

/// Runs the render command; args are the arguments after "render", argv0 the program path.
int runRender(char* argv0, int argc, char** argv);

} // namespace symflame::app
