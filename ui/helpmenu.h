// The Help menu: Keyboard Shortcuts (a table of every key and mouse gesture of the window) and
// About.
#pragma once

class QMenuBar;
class QWidget;

namespace symflame::ui {

/// Adds the Help menu to bar; its dialogs open over parent.
void addHelpMenu(QMenuBar* bar, QWidget* parent);

} // namespace symflame::ui
