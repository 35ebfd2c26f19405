// File > Export's dialog: where to write the flame graph (SVG or a raster image, by the name's
// suffix) and at which size: width and height in units (height "all rows" by default), and for
// raster images a scale, the pixels per unit (the screen's by default, so text stays sharp on a
// high-density screen; remembered between exports).
#pragma once

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace symflame::ui {
class FlameGraphWidget;
}

namespace symflame::ui {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    /// suggestedPath: the file proposed (its folder is the last export's when there was one);
    /// width: the width proposed, in units; screenScale: the scale proposed the first time.
    ExportDialog(QWidget* parent, const QString& suggestedPath, int width, double screenScale);

    QString path() const;
    int imageWidth() const;
    int imageHeight() const; ///< 0: as tall as every row needs
    double scale() const; ///< 1 for SVG

    void accept() override;

private:
    void browse();
    void update();

    QLineEdit* m_path = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QDoubleSpinBox* m_scale = nullptr;
    QLabel* m_size = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

/// File > Export: the ExportDialog asks where (SVG or PNG, suggestedName.svg proposed) and at
/// which size (the widget's width, every row, the screen's scale proposed), writes the widget's
/// graph there and says when that failed; the path written, or empty.
QString exportWidgetWithDialog(
    QWidget* parent, const FlameGraphWidget& widget, const QString& title, const QString& suggestedName);

} // namespace symflame::ui
