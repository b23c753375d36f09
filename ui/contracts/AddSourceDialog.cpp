#include "AddSourceDialog.h"
#include "Palette.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace forkscope::ui {

using engine::CodeCheck;
using engine::SourceSpec;

AddSourceDialog::AddSourceDialog(SourceSpec::Kind kind, AskCode askCode, QWidget* parent)
    : QDialog(parent), m_kind(kind), m_askCode(std::move(askCode)), m_address(new QLineEdit(this)),
      m_message(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    const bool factory = kind == SourceSpec::Kind::Factory;
    setWindowTitle(factory ? tr("Add factory") : tr("Add contract"));
    auto* form = new QFormLayout;
    m_address->setObjectName(QStringLiteral("sourceAddress"));
    m_address->setPlaceholderText(QStringLiteral("0x..."));
    form->addRow(factory ? tr("Factory address:") : tr("Contract address:"), m_address);
    if (factory) {
        m_event = new QLineEdit(this);
        m_event->setObjectName(QStringLiteral("factoryEvent"));
        m_event->setPlaceholderText(
            QStringLiteral("PairCreated(address indexed token0, address indexed token1, "
                           "address pair, uint256)"));
        form->addRow(tr("Creation event:"), m_event);
        m_childArg = new QLineEdit(this);
        m_childArg->setObjectName(QStringLiteral("childArg"));
        m_childArg->setPlaceholderText(tr("pair (a name, or a position from 0)"));
        form->addRow(tr("Child argument:"), m_childArg);
    }
    m_message->setObjectName(QStringLiteral("sourceMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Check"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &AddSourceDialog::tryAccept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // An edit after an answer asks again; one while the node is asked drops that answer.
    for (QLineEdit* e : {m_address, m_event, m_childArg})
        if (e)
            connect(e, &QLineEdit::textEdited, this, [this] {
                m_ticket = 0;
                m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
            });
    resize(640, sizeHint().height());
}

QString AddSourceDialog::message() const
{
    return m_message->text();
}

void AddSourceDialog::say(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(
        error ? QStringLiteral("color: %1").arg(Palette::logLevel(QStringLiteral("error")).name())
              : QString());
}

void AddSourceDialog::tryAccept()
{
    SourceSpec s;
    s.kind = m_kind;
    s.address = m_address->text();
    if (m_event)
        s.event = m_event->text();
    if (m_childArg)
        s.childArg = m_childArg->text();
    if (const QString why = s.check(); !why.isEmpty()) {
        say(why, true);
        return;
    }
    s.address = s.normalizedAddress();
    m_spec = s;
    say(tr("Asking the node for the code at %1...").arg(s.address), false);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_ticket = m_askCode(s.address);
}

void AddSourceDialog::applyCodeCheck(const CodeCheck& check)
{
    if (m_ticket == 0 || check.ticket != m_ticket)
        return;
    m_ticket = 0;
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
    switch (check.verdict) {
    case CodeCheck::Verdict::HasCode:
        say(tr("%1 has %2 bytes of code.").arg(check.address).arg(check.codeBytes), false);
        accept();
        return;
    case CodeCheck::Verdict::NoCode:
        say(tr("The node has no code at %1: it is an account, or the contract is not deployed "
               "on this chain (yet). Check the address and the chain.")
                .arg(check.address),
            true);
        return;
    case CodeCheck::Verdict::Failed:
        say(tr("The code at %1 could not be checked: %2").arg(check.address, check.error), true);
        return;
    }
}

} // namespace forkscope::ui
