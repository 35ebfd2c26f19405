#include "ui/symbolizesettings.h"

#include "symbolize/locate/debuginfolocator.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QGuiApplication>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

namespace symflame::ui {

namespace {

constexpr char kGroup[] = "debuginfod";

constexpr char kLocalGroup[] = "debuginfo";

QStringList lines(const QPlainTextEdit* e)
{
    QStringList out;
    for (const QString& line : e->toPlainText().split('\n'))
        if (!line.trimmed().isEmpty())
            out << line.trimmed();
    return out;
}

QPlainTextEdit* listEdit(const QStringList& items, const QString& placeholder, QWidget* parent)
{
    auto* e = new QPlainTextEdit(parent);
    e->setPlainText(items.join('\n'));
    e->setPlaceholderText(placeholder);
    e->setTabChangesFocus(true);
    // Three lines shown (more scroll): the dialog's seven lists fit a 768-pixel screen.
    const int line = e->fontMetrics().lineSpacing();
    e->setMinimumHeight(2 * line + 12);
    e->setMaximumHeight(3 * line + 14);
    return e;
}

QStringList environmentServers()
{
    QStringList out;
    for (const std::string& u : symbolize::parseDebuginfodUrls(qEnvironmentVariable("DEBUGINFOD_URLS").toStdString()))
        out << QString::fromStdString(u);
    return out;
}

} // namespace

LocalDebugSettings LocalDebugSettings::load()
{
    QSettings s;
    s.beginGroup(QLatin1String(kLocalGroup));
    LocalDebugSettings d;
    d.debugDirs = s.value("debugDirs").toStringList();
    d.useDefaultDebugDir = s.value("useDefaultDebugDir", true).toBool();
    d.useClientCache = s.value("useClientCache", true).toBool();
    d.searchDirs = s.value("searchDirs").toStringList();
    d.pathMaps = s.value("pathMaps").toStringList();
    d.sourceMapDirs = s.value("sourceMapDirs").toStringList();
    d.sourceDirs = s.value("sourceDirs").toStringList();
    if (!symbolize::parseIsolationPolicy(s.value("isolation", "downloaded").toString().toStdString(), &d.isolation))
        d.isolation = symbolize::IsolationPolicy::Downloaded;
    d.isolationTimeoutSeconds = std::clamp(s.value("isolationTimeoutSeconds", 60).toInt(), 1, 86400);
    return d;
}

void LocalDebugSettings::save() const
{
    QSettings s;
    s.beginGroup(QLatin1String(kLocalGroup));
    s.setValue("debugDirs", debugDirs);
    s.setValue("useDefaultDebugDir", useDefaultDebugDir);
    s.setValue("useClientCache", useClientCache);
    s.setValue("searchDirs", searchDirs);
    s.setValue("pathMaps", pathMaps);
    s.setValue("sourceMapDirs", sourceMapDirs);
    s.setValue("sourceDirs", sourceDirs);
    s.setValue("isolation", QString::fromLatin1(symbolize::isolationPolicyName(isolation)));
    s.setValue("isolationTimeoutSeconds", isolationTimeoutSeconds);
}

symbolize::LocatorOptions LocalDebugSettings::toOptions() const
{
    symbolize::LocatorOptions o;
    for (const QString& d : debugDirs)
        o.debugDirs.push_back(d.toStdString());
    o.useDefaultDebugDir = useDefaultDebugDir;
    o.useClientCache = useClientCache;
    for (const QString& d : searchDirs)
        o.searchDirs.push_back(d.toStdString());
    for (const QString& m : pathMaps)
        if (auto map = symbolize::parsePathMap(m.toStdString()))
            o.pathMaps.push_back(std::move(*map));
    return o;
}

SymbolizeSettings SymbolizeSettings::load()
{
    return SymbolizeSettings { LocalDebugSettings::load(), DebuginfodSettings::load() };
}

void SymbolizeSettings::save() const
{
    local.save();
    debuginfod.save();
}

symbolize::SymbolizeOptions SymbolizeSettings::toOptions() const
{
    symbolize::SymbolizeOptions o;
    o.locator = local.toOptions();
    o.debuginfod = debuginfod.toOptions();
    for (const QString& d : local.sourceMapDirs)
        o.sourceMapDirs.push_back(d.toStdString());
    o.isolation.policy = local.isolation;
    o.isolation.timeoutSeconds = static_cast<unsigned>(std::max(1, local.isolationTimeoutSeconds));
    return o;
}

DebuginfodSettings DebuginfodSettings::load()
{
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
    DebuginfodSettings d;
    d.servers = s.value("servers").toStringList();
    d.offline = s.value("offline", false).toBool();
    d.timeoutSeconds = s.value("timeoutSeconds", symbolize::defaultDebuginfodTimeout()).toInt();
    d.maxSizeMiB = s.value("maxSizeMiB", 0).toInt();
    d.cacheDir = s.value("cacheDir").toString();
    d.parallelDownloads = s.value("parallelDownloads", 4).toInt();
    const QString env = s.value("environmentServers").toString();
    d.envChoice = env == "use" ? EnvChoice::Use : env == "ignore" ? EnvChoice::Ignore : EnvChoice::NotAsked;
    return d;
}

void DebuginfodSettings::save() const
{
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
    s.setValue("servers", servers);
    s.setValue("offline", offline);
    s.setValue("timeoutSeconds", timeoutSeconds);
    s.setValue("maxSizeMiB", maxSizeMiB);
    s.setValue("cacheDir", cacheDir);
    s.setValue("parallelDownloads", parallelDownloads);
    if (envChoice == EnvChoice::NotAsked)
        s.remove("environmentServers");
    else
        s.setValue("environmentServers", envChoice == EnvChoice::Use ? "use" : "ignore");
}

symbolize::DebuginfodOptions DebuginfodSettings::toOptions() const
{
    symbolize::DebuginfodOptions o;
    o.offline = offline;
    for (const QString& u : servers)
        if (!u.trimmed().isEmpty())
            o.urls.push_back(u.trimmed().toStdString());
    if (envChoice == EnvChoice::Use)
        for (const QString& u : environmentServers())
            if (!servers.contains(u))
                o.urls.push_back(u.toStdString());
    o.timeoutSeconds = timeoutSeconds;
    o.maxSizeBytes = int64_t(maxSizeMiB) << 20;
    o.cacheDir = cacheDir.toStdString();
    o.parallelDownloads = static_cast<unsigned>(std::max(1, parallelDownloads));
    return o;
}

DebuginfodSettings askAboutEnvironmentServers(QWidget* parent)
{
    DebuginfodSettings d = DebuginfodSettings::load();
    const QStringList env = environmentServers();
    if (env.isEmpty() || d.envChoice != DebuginfodSettings::EnvChoice::NotAsked)
        return d;
    QMessageBox box(QMessageBox::Question, QObject::tr("Download debug info?"),
        QObject::tr("DEBUGINFOD_URLS names debuginfod servers:\n\n%1\n\n"
                    "symflame can ask them for the debug info of binaries that have none on this machine. "
                    "The build IDs of the profile's binaries are sent to them.")
            .arg(env.join('\n')),
        QMessageBox::NoButton, parent);
    QPushButton* use = box.addButton(QObject::tr("Use these servers"), QMessageBox::AcceptRole);
    box.addButton(QObject::tr("Stay offline"), QMessageBox::RejectRole);
    box.setDefaultButton(use);
    box.exec();
    d.envChoice = box.clickedButton() == use ? DebuginfodSettings::EnvChoice::Use : DebuginfodSettings::EnvChoice::Ignore;
    d.save();
    return d;
}

SymbolizeSettingsDialog::SymbolizeSettingsDialog(const SymbolizeSettings& settings, QWidget* parent)
    : QDialog(parent)
    , m_initial(settings)
{
    setWindowTitle(tr("Symbolization settings"));
    auto* layout = new QVBoxLayout(this);
    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs);

    // Local debug info.
    auto* local = new QWidget(m_tabs);
    auto* localForm = new QFormLayout(local);
    auto* localIntro = new QLabel(tr("Binaries are found by the path the profile recorded (rewritten by the path "
                                     "maps) and by build ID in the search directories; their debug info in the "
                                     "binary, in <debug dir>/.build-id/xx/yyyy.debug, or by .gnu_debuglink. JavaScript "
                                     "frames are mapped to their original source through the map the script's "
                                     "sourceMappingURL names, <script>.map beside it or in the source-map "
                                     "directories."),
        local);
    localIntro->setWordWrap(true);
    localForm->addRow(localIntro);
    const LocalDebugSettings& ls = settings.local;
    m_debugDirs = listEdit(ls.debugDirs, tr("/path/to/debug (one per line)"), local);
    localForm->addRow(tr("Debug directories:"), m_debugDirs);
    m_defaultDebugDir = new QCheckBox(tr("Also /usr/lib/debug"), local);
    m_defaultDebugDir->setChecked(ls.useDefaultDebugDir);
    localForm->addRow(QString(), m_defaultDebugDir);
    m_clientCache = new QCheckBox(tr("Also the debuginfod client cache (files gdb, perf or earlier downloads left there)"), local);
    m_clientCache->setChecked(ls.useClientCache);
    localForm->addRow(QString(), m_clientCache);
    m_searchDirs = listEdit(ls.searchDirs, tr("/path/to/build/output (one per line)"), local);
    localForm->addRow(tr("Search directories:"), m_searchDirs);
    m_pathMaps = listEdit(ls.pathMaps, tr("/recorded/prefix=/local/prefix"), local);
    localForm->addRow(tr("Path maps:"), m_pathMaps);
    m_sourceMapDirs = listEdit(ls.sourceMapDirs, tr("/path/to/source-maps (one per line)"), local);
    m_sourceMapDirs->setToolTip(tr("JavaScript frames: <script>.map is looked for here after the script's "
                                   "sourceMappingURL and the .map beside it; a sourceMappingURL may point here."));
    localForm->addRow(tr("Source-map directories:"), m_sourceMapDirs);
    m_sourceDirs = listEdit(ls.sourceDirs, tr("/path/to/checkout (one per line)"), local);
    m_sourceDirs->setObjectName(QStringLiteral("sourceDirs"));
    m_sourceDirs->setToolTip(tr("Source and Disassembly: a source file not at the path the debug info gives is "
                                "looked for here, by the tails of that path (src/a/b.cc, a/b.cc, b.cc)."));
    localForm->addRow(tr("Source directories:"), m_sourceDirs);
    m_isolation = new QComboBox(local);
    m_isolation->addItem(tr("Downloaded files (recommended)"), QStringLiteral("downloaded"));
    m_isolation->addItem(tr("All binaries"), QStringLiteral("all"));
    m_isolation->addItem(tr("None (fastest)"), QStringLiteral("none"));
    m_isolation->setCurrentIndex(
        std::max(0, m_isolation->findData(QString::fromLatin1(symbolize::isolationPolicyName(ls.isolation)))));
    m_isolation->setToolTip(tr("Debug info read in a separate process: a file that crashes or hangs the DWARF "
                               "reader then fails only its own binary, and the profile stays open."));
    localForm->addRow(tr("Read in a separate process:"), m_isolation);
    m_isolationTimeout = new QSpinBox(local);
    m_isolationTimeout->setRange(1, 86400);
    m_isolationTimeout->setSuffix(tr(" s"));
    m_isolationTimeout->setValue(ls.isolationTimeoutSeconds);
    localForm->addRow(tr("Stop a silent reader after:"), m_isolationTimeout);
    // In a scroll area, so that the buttons stay on a screen too short for the whole page.
    auto* localScroll = new QScrollArea(m_tabs);
    localScroll->setWidget(local);
    localScroll->setWidgetResizable(true);
    localScroll->setFrameShape(QFrame::NoFrame);
    localScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // As large as the page, but no taller than the screen leaves room for.
    const QSize page = local->sizeHint();
    const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen();
    const int room = screen ? screen->availableGeometry().height() - 200 : page.height();
    localScroll->setMinimumSize(page.width() + localScroll->verticalScrollBar()->sizeHint().width(),
        std::max(200, std::min(page.height(), room)));
    m_tabs->addTab(localScroll, tr("Local debug info"));

    // Servers.
    const DebuginfodSettings& ds = settings.debuginfod;
    auto* servers = new QWidget(m_tabs);
    auto* form = new QFormLayout(servers);
    auto* intro = new QLabel(tr("Binaries without debug info on this machine are looked up by build ID on these "
                                "debuginfod servers, after the local debug directories."),
        servers);
    intro->setWordWrap(true);
    form->addRow(intro);
    m_servers = listEdit(ds.servers, QStringLiteral("https://debuginfod.example.org"), servers);
    form->addRow(tr("Servers (one per line):"), m_servers);

    const QStringList env = environmentServers();
    m_useEnv = new QCheckBox(env.isEmpty() ? tr("Also use DEBUGINFOD_URLS (not set)")
                                           : tr("Also use DEBUGINFOD_URLS: %1").arg(env.join(' ')),
        servers);
    m_useEnv->setChecked(ds.envChoice == DebuginfodSettings::EnvChoice::Use);
    m_useEnv->setEnabled(!env.isEmpty());
    form->addRow(QString(), m_useEnv);

    m_offline = new QCheckBox(tr("Work offline (contact no server)"), servers);
    m_offline->setChecked(ds.offline);
    form->addRow(QString(), m_offline);

    m_timeout = new QSpinBox(servers);
    m_timeout->setRange(1, 3600);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setValue(ds.timeoutSeconds);
    form->addRow(tr("Give up a silent server after:"), m_timeout);

    m_maxSize = new QSpinBox(servers);
    m_maxSize->setRange(0, 1 << 20);
    m_maxSize->setSuffix(tr(" MiB"));
    m_maxSize->setSpecialValueText(tr("no limit"));
    m_maxSize->setValue(ds.maxSizeMiB);
    form->addRow(tr("Largest download:"), m_maxSize);

    m_parallel = new QSpinBox(servers);
    m_parallel->setRange(1, 64);
    m_parallel->setValue(ds.parallelDownloads);
    form->addRow(tr("Downloads at once:"), m_parallel);

    auto* cacheRow = new QHBoxLayout();
    m_cacheDir = new QLineEdit(ds.cacheDir, servers);
    m_cacheDir->setPlaceholderText(tr("standard cache, shared with gdb and perf"));
    auto* browse = new QPushButton(tr("Browse…"), servers);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Cache directory"), m_cacheDir->text());
        if (!d.isEmpty())
            m_cacheDir->setText(d);
    });
    cacheRow->addWidget(m_cacheDir, 1);
    cacheRow->addWidget(browse);
    form->addRow(tr("Cache directory:"), cacheRow);
    m_tabs->addTab(servers, tr("debuginfod servers"));
    // Names for tests and accessibility tools.
    m_debugDirs->setObjectName("debugDirs");
    m_defaultDebugDir->setObjectName("useDefaultDebugDir");
    m_clientCache->setObjectName("useClientCache");
    m_searchDirs->setObjectName("searchDirs");
    m_pathMaps->setObjectName("pathMaps");
    m_sourceMapDirs->setObjectName("sourceMapDirs");
    m_isolation->setObjectName("isolation");
    m_isolationTimeout->setObjectName("isolationTimeout");
    m_servers->setObjectName("servers");
    m_useEnv->setObjectName("useEnvironmentServers");
    m_offline->setObjectName("offline");
    m_timeout->setObjectName("timeout");
    m_maxSize->setObjectName("maxSize");
    m_parallel->setObjectName("parallelDownloads");
    m_cacheDir->setObjectName("cacheDir");

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(640, sizeHint().height());
}

QString SymbolizeSettingsDialog::pathMapError() const
{
    for (const QString& m : lines(m_pathMaps))
        if (auto map = symbolize::parsePathMap(m.toStdString()); !map)
            return tr("Path map \"%1\": %2").arg(m, QString::fromStdString(map.error().message));
    return {};
}

void SymbolizeSettingsDialog::accept()
{
    if (const QString e = pathMapError(); !e.isEmpty()) {
        m_tabs->setCurrentIndex(0);
        QMessageBox::warning(this, tr("Invalid path map"), e + tr("\n\nWrite each map as /recorded/prefix=/local/prefix."));
        return;
    }
    QDialog::accept();
}

SymbolizeSettings SymbolizeSettingsDialog::settings() const
{
    SymbolizeSettings s = m_initial;
    s.local.debugDirs = lines(m_debugDirs);
    s.local.useDefaultDebugDir = m_defaultDebugDir->isChecked();
    s.local.useClientCache = m_clientCache->isChecked();
    s.local.searchDirs = lines(m_searchDirs);
    s.local.pathMaps = lines(m_pathMaps);
    s.local.sourceMapDirs = lines(m_sourceMapDirs);
    s.local.sourceDirs = lines(m_sourceDirs);
    symbolize::parseIsolationPolicy(m_isolation->currentData().toString().toStdString(), &s.local.isolation);
    s.local.isolationTimeoutSeconds = m_isolationTimeout->value();
    DebuginfodSettings& d = s.debuginfod;
    d.servers = lines(m_servers);
    d.offline = m_offline->isChecked();
    d.timeoutSeconds = m_timeout->value();
    d.maxSizeMiB = m_maxSize->value();
    d.parallelDownloads = m_parallel->value();
    d.cacheDir = m_cacheDir->text().trimmed();
    if (m_useEnv->isEnabled())
        d.envChoice = m_useEnv->isChecked() ? DebuginfodSettings::EnvChoice::Use : DebuginfodSettings::EnvChoice::Ignore;
    return s;
}

} // namespace symflame::ui
