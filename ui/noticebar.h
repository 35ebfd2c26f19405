// NoticeBar: a strip above the flame graph that warns about the profile shown as a whole (today:
// stacks that reach no thread root, model::TruncatedStacks), with an action that shows the
// frames concerned and a button that dismisses it until the warning changes.
#pragma once

#include <QFrame>
#include <QString>

class QLabel;
class QPushButton;
class QToolButton;

namespace symflame::ui {

class NoticeBar : public QFrame {
    Q_OBJECT
public:
    explicit NoticeBar(QWidget* parent = nullptr);

    /// Shows text (plain; toolTip over it, the whole story) with an action button labelled
    /// action (none when empty); a notice the user dismissed stays hidden while the same text is
    /// set again.
    void setNotice(const QString& text, const QString& action = {}, const QString& toolTip = {});
    /// Hides the bar (no notice for the profile shown).
    void clearNotice();
    /// The notice shown; empty while the bar is hidden (none, or dismissed).
    QString text() const;
    QPushButton* actionButton() const { return m_action; }

signals:
    void actionTriggered();

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyColors();

    QLabel* m_icon = nullptr;
    QLabel* m_text = nullptr;
    QPushButton* m_action = nullptr;
    QToolButton* m_close = nullptr;
    QString m_dismissed; ///< the text the user closed
};

} // namespace symflame::ui
