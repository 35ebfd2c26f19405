#include "ui/exportdialog.h"

#include "ui/flameexport.h"
#include "ui/flamegraphwidget.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

#include <cmath>

namespace symflame::ui {

namespace {

constexpr int kMaxPixels = 32768;
constexpr const char* kScaleKey = "export/scale";
constexpr const char* kFolderKey = "export/folder";

} // namespace

ExportDialog::ExportDialog(QWidget* parent, const QString& suggestedPath, int width, double screenScale)
    : QDialog(parent)
{
    setWindowTitle(tr("Export Flame Graph"));
    setObjectName(QStringLiteral("exportDialog"));
    QSettings settings;

    m_path = new QLineEdit(this);
    m_path->setObjectName(QStringLiteral("exportPath"));
    QString path = suggestedPath;
    const QString folder = settings.value(QLatin1String(kFolderKey)).toString();
    if (QFileInfo(path).isRelative())
        path = QDir(folder.isEmpty() ? QDir::currentPath() : folder).absoluteFilePath(path);
    m_path->setText(path);
    m_path->setMinimumWidth(m_path->fontMetrics().averageCharWidth() * 50);
    auto* browse = new QPushButton(tr("&Browse…"), this);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_path, 1);
    fileRow->addWidget(browse);

    m_width = new QSpinBox(this);
    m_width->setObjectName(QStringLiteral("exportWidth"));
    m_width->setRange(200, kMaxPixels);
    m_width->setSuffix(tr(" px"));
    m_width->setValue(width);

    m_height = new QSpinBox(this);
    m_height->setObjectName(QStringLiteral("exportHeight"));
    m_height->setRange(0, kMaxPixels);
    m_height->setSuffix(tr(" px"));
    m_height->setSpecialValueText(tr("All rows"));
    m_height->setToolTip(tr("All rows: as tall as the deepest stack needs. A smaller height keeps the "
                            "rows nearest the root."));
    m_height->setValue(0);

    m_scale = new QDoubleSpinBox(this);
    m_scale->setObjectName(QStringLiteral("exportScale"));
    m_scale->setRange(0.5, 4);
    m_scale->setSingleStep(0.5);
    m_scale->setDecimals(1);
    m_scale->setSuffix(QStringLiteral("×"));
    m_scale->setValue(settings.value(QLatin1String(kScaleKey), screenScale).toDouble());

    m_size = new QLabel(this);
    m_size->setObjectName(QStringLiteral("exportSize"));
    m_size->setTextFormat(Qt::PlainText);

    auto* form = new QFormLayout;
    auto* fileLabel = new QLabel(tr("&File:"), this);
    fileLabel->setBuddy(m_path);
    form->addRow(fileLabel, fileRow);
    form->addRow(tr("&Width:"), m_width);
    form->addRow(tr("&Height:"), m_height);
    form->addRow(tr("&Scale:"), m_scale);
    form->addRow(QString(), m_size);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_buttons);

    connect(m_path, &QLineEdit::textChanged, this, &ExportDialog::update);
    connect(m_width, &QSpinBox::valueChanged, this, &ExportDialog::update);
    connect(m_height, &QSpinBox::valueChanged, this, &ExportDialog::update);
    connect(m_scale, &QDoubleSpinBox::valueChanged, this, &ExportDialog::update);
    update();
}

QString ExportDialog::path() const
{
    return m_path->text().trimmed();
}

int ExportDialog::imageWidth() const
{
    return m_width->value();
}

int ExportDialog::imageHeight() const
{
    return m_height->value();
}

double ExportDialog::scale() const
{
    return isSvgPath(path()) ? 1.0 : m_scale->value();
}

void ExportDialog::browse()
{
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export Flame Graph"), path(),
        tr("SVG (*.svg);;PNG image (*.png);;JPEG image (*.jpg)"));
    if (!chosen.isEmpty())
        m_path->setText(chosen);
}

// The scale only for raster images; what the file will measure; Export only with a file name
// and a size that fits.
void ExportDialog::update()
{
    const bool svg = isSvgPath(path());
    m_scale->setEnabled(!svg);
    m_scale->setToolTip(svg ? tr("An SVG is drawn in vectors: it is sharp at any size.")
                            : tr("Pixels per unit: 2× draws the graph, text and all, into twice the pixels."));
    const double s = scale();
    const long w = std::lround(imageWidth() * s), h = std::lround(imageHeight() * s);
    QString text;
    bool fits = w <= kMaxPixels && h <= kMaxPixels;
    if (!fits)
        text = tr("Too large: at most %1 pixels each way.").arg(kMaxPixels);
    else if (svg)
        text = imageHeight() > 0 ? tr("SVG of %1 × %2").arg(imageWidth()).arg(imageHeight())
                                 : tr("SVG %1 wide, as tall as every row needs").arg(imageWidth());
    else
        text = imageHeight() > 0 ? tr("Image of %1 × %2 pixels").arg(w).arg(h)
                                 : tr("Image %1 pixels wide, as tall as every row needs").arg(w);
    m_size->setText(text);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(fits && !path().isEmpty());
}

void ExportDialog::accept()
{
    QSettings settings;
    if (!isSvgPath(path()))
        settings.setValue(QLatin1String(kScaleKey), m_scale->value());
    settings.setValue(QLatin1String(kFolderKey), QFileInfo(path()).absolutePath());
    QDialog::accept();
}

QString exportWidgetWithDialog(
    QWidget* parent, const FlameGraphWidget& widget, const QString& title, const QString& suggestedName)
{
    ExportDialog dialog(parent, suggestedName + QStringLiteral(".svg"), std::max(widget.width(), 200),
        widget.devicePixelRatioF());
    if (dialog.exec() != QDialog::Accepted)
        return {};
    const QString path = dialog.path();
    QString error;
    if (!exportWidgetAt(widget, title, path, dialog.imageWidth(), dialog.imageHeight(), dialog.scale(), &error)) {
        QMessageBox::warning(parent, QObject::tr("Export Failed"), error);
        return {};
    }
    return path;
}

} // namespace symflame::ui
