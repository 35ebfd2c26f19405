#include "ui/debuginfodsettings.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace symflame::ui {

namespace {

constexpr char kGroup[] = "debuginfod";

QStringList environmentServers()
{
    QStringList out;
    for (const std::string& u : symbolize::parseDebuginfodUrls(qEnvironmentVariable("DEBUGINFOD_URLS").toStdString()))
        out << QString::fromStdString(u);
    return out;
}

} // namespace

DebuginfodSettings DebuginfodSettings::load()
{
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
    DebuginfodSettings d;
    d.servers = s.value("servers").toStringList();
    d.offline = s.value("offline", false).toBool();
    d.timeoutSeconds = s.value("timeoutSeconds", 30).toInt();
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

DebuginfodSettingsDialog::DebuginfodSettingsDialog(const DebuginfodSettings& settings, QWidget* parent)
    : QDialog(parent)
    , m_initial(settings)
{
    setWindowTitle(tr("Debug info servers"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Binaries without debug info on this machine are looked up by build ID on these "
                                "debuginfod servers, after the local debug directories."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout();
    m_servers = new QPlainTextEdit(this);
    m_servers->setPlaceholderText(QStringLiteral("https://debuginfod.example.org"));
    m_servers->setPlainText(settings.servers.join('\n'));
    m_servers->setTabChangesFocus(true);
    m_servers->setMinimumHeight(80);
    form->addRow(tr("Servers (one per line):"), m_servers);

    const QStringList env = environmentServers();
    m_useEnv = new QCheckBox(env.isEmpty() ? tr("Also use DEBUGINFOD_URLS (not set)")
                                           : tr("Also use DEBUGINFOD_URLS: %1").arg(env.join(' ')),
        this);
    m_useEnv->setChecked(settings.envChoice == DebuginfodSettings::EnvChoice::Use);
    m_useEnv->setEnabled(!env.isEmpty());
    form->addRow(QString(), m_useEnv);

    m_offline = new QCheckBox(tr("Work offline (contact no server)"), this);
    m_offline->setChecked(settings.offline);
    form->addRow(QString(), m_offline);

    m_timeout = new QSpinBox(this);
    m_timeout->setRange(1, 3600);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setValue(settings.timeoutSeconds);
    form->addRow(tr("Give up a silent server after:"), m_timeout);

    m_maxSize = new QSpinBox(this);
    m_maxSize->setRange(0, 1 << 20);
    m_maxSize->setSuffix(tr(" MiB"));
    m_maxSize->setSpecialValueText(tr("no limit"));
    m_maxSize->setValue(settings.maxSizeMiB);
    form->addRow(tr("Largest download:"), m_maxSize);

    m_parallel = new QSpinBox(this);
    m_parallel->setRange(1, 64);
    m_parallel->setValue(settings.parallelDownloads);
    form->addRow(tr("Downloads at once:"), m_parallel);

    auto* cacheRow = new QHBoxLayout();
    m_cacheDir = new QLineEdit(settings.cacheDir, this);
    m_cacheDir->setPlaceholderText(tr("standard cache, shared with gdb and perf"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Cache directory"), m_cacheDir->text());
        if (!d.isEmpty())
            m_cacheDir->setText(d);
    });
    cacheRow->addWidget(m_cacheDir, 1);
    cacheRow->addWidget(browse);
    form->addRow(tr("Cache directory:"), cacheRow);
    layout->addLayout(form);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(600, sizeHint().height());
}

DebuginfodSettings DebuginfodSettingsDialog::settings() const
{
    DebuginfodSettings d = m_initial;
    d.servers.clear();
    for (const QString& line : m_servers->toPlainText().split('\n'))
        if (!line.trimmed().isEmpty())
            d.servers << line.trimmed();
    d.offline = m_offline->isChecked();
    d.timeoutSeconds = m_timeout->value();
    d.maxSizeMiB = m_maxSize->value();
    d.parallelDownloads = m_parallel->value();
    d.cacheDir = m_cacheDir->text().trimmed();
    if (m_useEnv->isEnabled())
        d.envChoice = m_useEnv->isChecked() ? DebuginfodSettings::EnvChoice::Use : DebuginfodSettings::EnvChoice::Ignore;
    return d;
}

} // namespace symflame::ui
