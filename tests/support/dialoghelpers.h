// Helpers for tests of the viewer's widgets (links Qt Widgets; symflame_testsupport_widgets).
#pragma once

#include <QString>

namespace symflame::testing {

/// Answers the next modal file dialog with path (a file or a directory), from the event loop the
/// dialog runs: sets *answered and accepts the dialog. Until a dialog is open it tries again every
/// 20 ms, the first time after delayMs.
void answerFileDialog(const QString& path, bool* answered, int delayMs = 0);

} // namespace symflame::testing
