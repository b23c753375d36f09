#include "HelpDialog.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace forkscope::ui {

HelpDialog::HelpDialog(const QString& title, const QString& html, QWidget* parent)
    : QDialog(parent), m_browser(new QTextBrowser(this))
{
    setWindowTitle(title);
    setAttribute(Qt::WA_DeleteOnClose);
    m_browser->setHtml(html);
    m_browser->setOpenExternalLinks(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(560, 520);
}

QString HelpDialog::plainText() const
{
    return m_browser->toPlainText();
}

} // namespace forkscope::ui
