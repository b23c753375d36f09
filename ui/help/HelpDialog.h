#pragma once

#include <QDialog>

class QTextBrowser;

namespace forkscope::ui {

// Help > Getting started and Help > Glossary: a page of simple HTML in a window of its own,
// left open beside the main window while the user tries what it says.
class HelpDialog : public QDialog
{
    Q_OBJECT
public:
    HelpDialog(const QString& title, const QString& html, QWidget* parent = nullptr);
    QString plainText() const;

private:
    QTextBrowser* m_browser;
};

} // namespace forkscope::ui
