#pragma once

#include <QWidget>

class QToolButton;

namespace forkscope::ui {

class ElidedLabel;

// After an export, the status bar says which file was written, opens it on a click of its
// name, and shows its folder (the whole path on hover): before, the only trace of a
// successful export was a line in the event log.
class ExportNotice : public QWidget
{
    Q_OBJECT
public:
    explicit ExportNotice(QWidget* parent = nullptr);

    void showExported(const QString& path);
    QString path() const { return m_path; }
    QString text() const;

signals:
    // What the buttons ask for, as URLs (the window opens them with QDesktopServices).
    void openRequested(const QUrl& url);

private:
    QString m_path;
    ElidedLabel* m_text;
    QToolButton* m_open;
    QToolButton* m_folder;
};

} // namespace forkscope::ui
