// GUI entry: refuse early and clearly when there is no display (instead of Qt's xcb abort),
// then QApplication and the main window.
#include "app/gui.h"

#include "app/cmdline.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QIcon>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace symflame::app {

namespace {

// Qt's own command-line options that take a value; QApplication removes them from argv.
bool isQtOptionWithValue(std::string_view a)
{
    for (std::string_view o : { "-platform", "-platformpluginpath", "-platformtheme", "-plugin", "-qwindowgeometry",
             "-qwindowicon", "-qwindowtitle", "-style", "-stylesheet", "-session", "-display", "-geometry", "-title",
             "-name", "-qmljsdebugger" })
        if (a == o || (a.size() > 1 && a[1] == '-' && a.substr(1) == o))
            return true;
    return false;
}

bool isQtFlag(std::string_view a)
{
    for (std::string_view o : { "-reverse", "-widgetcount", "-nograb", "-dograb", "-sync" })
        if (a == o)
            return true;
    return false;
}

bool envSet(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v;
}

} // namespace

int runGui(int argc, char** argv)
{
    std::vector<std::string> files; // several are merged into one profile
    std::string base; // --base: the profile FILE is compared with
    bool platformGiven = envSet("QT_QPA_PLATFORM");
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (isQtOptionWithValue(a)) {
            if (i + 1 >= argc)
                return usageError("option '" + std::string(a) + "' needs a value");
            platformGiven = platformGiven || a.ends_with("-platform");
            ++i;
            continue;
        }
        if (isQtFlag(a))
            continue;
        if (a == "--base" || a.starts_with("--base=")) { // compare FILE with BASE
            if (a == "--base" && i + 1 >= argc)
                return usageError("option '--base' needs a value");
            base = a == "--base" ? std::string(argv[++i]) : std::string(a.substr(7));
            continue;
        }
        if (a.size() > 1 && a[0] == '-')
            return usageError("unknown option '" + std::string(a) + "'");
        files.emplace_back(a);
    }
    for (const std::string& file : files) {
        std::error_code ec;
        if (!std::filesystem::exists(file, ec))
            return inputError(file, "no such file");
    }
    if (!base.empty()) {
        std::error_code ec;
        if (!std::filesystem::exists(base, ec))
            return inputError(base, "no such file");
        if (files.empty())
            return usageError("--base compares a FILE with BASE; give the FILE");
    }
    if (!platformGiven && !envSet("DISPLAY") && !envSet("WAYLAND_DISPLAY")) {
        std::fputs("symflame: no display to open the viewer on (neither DISPLAY nor WAYLAND_DISPLAY is set)\n"
                   "  run it in a virtual display:   xvfb-run -a symflame FILE\n"
                   "  or without any window system:  QT_QPA_PLATFORM=offscreen symflame FILE\n"
                   "  or draw the flame graph only:  symflame render FILE -o flame.png\n"
                   "  (symflame info|top|collapse FILE need no display either)\n",
            stderr);
        return ExitFailure;
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("symflame"));
    QApplication::setOrganizationName(QStringLiteral("symflame"));
    QApplication::setApplicationVersion(QStringLiteral(SYMFLAME_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("symflame"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/symflame.svg")));

    ui::MainWindow window;
    window.restoreLayout(); // the last session's size and panels, else a size that fits the screen
    window.show();
    QStringList paths;
    for (const std::string& file : files)
        paths << QString::fromLocal8Bit(file.c_str());
    window.openFiles(paths);
    if (!base.empty())
        window.compareWith(QString::fromLocal8Bit(base.c_str()));
    return app.exec();
}

} // namespace symflame::app
