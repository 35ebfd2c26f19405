#include "ui/helpmenu.h"

#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#include <utility>

namespace symflame::ui {

namespace {

void showShortcuts(QWidget* parent)
{
    const std::pair<const char*, const char*> shortcuts[] = {
        { "Ctrl+O", "Open a profile" },
        { "Ctrl+Shift+S", "Save the symbolized profile (pprof, or OTLP)" },
        { "Ctrl+E", "Export the current view as SVG or PNG" },
        { "Ctrl+F", "Search functions, files and binaries" },
        { "Enter", "Next search match (in the search field)" },
        { "Esc", "Close the search (in the search field)" },
        { "Click", "Zoom into a frame and show its details" },
        { "Arrow keys", "Select the parent, the widest child or a sibling of the selected frame" },
        { "Enter", "Zoom into the selected frame" },
        { "Click a function", "Select it everywhere (Top Functions); double-click zooms to it" },
        { "Right-click", "Focus on, ignore or hide a function or binary" },
        { "Esc, Backspace", "Back to the previous zoom" },
        { "Ctrl+0, Home", "Reset the zoom" },
        { "Ctrl+wheel", "Zoom horizontally around the pointer" },
        { "Shift+wheel, drag", "Pan a zoomed view" },
        { "Ctrl+U", "Source and disassembly of the selected function, with the cost of each line" },
        { "Ctrl+I", "Flame or icicle" },
        { "Ctrl+B", "Top-down or bottom-up" },
        { "Ctrl+Q", "Quit" },
    };
    QString html = QStringLiteral("<table>");
    for (const auto& [keys, what] : shortcuts)
        html += QStringLiteral("<tr><td style='padding-right:16px'><b>%1</b></td><td>%2</td></tr>")
                    .arg(QString::fromUtf8(keys), QObject::tr(what));
    html += QStringLiteral("</table>");
    QMessageBox::information(parent, QObject::tr("Keyboard Shortcuts"), html);
}

} // namespace

void addHelpMenu(QMenuBar* bar, QWidget* parent)
{
    QMenu* help = bar->addMenu(QObject::tr("&Help"));
    help->addAction(QObject::tr("&Keyboard Shortcuts"), parent, [parent] { showShortcuts(parent); });
    help->addAction(QObject::tr("&About symflame"), parent, [parent] {
        QMessageBox::about(parent, QObject::tr("About symflame"),
            QObject::tr("<b>symflame %1</b><p>Flame graphs for profiles of native code.</p>")
                .arg(QApplication::applicationVersion()));
    });
}

} // namespace symflame::ui
