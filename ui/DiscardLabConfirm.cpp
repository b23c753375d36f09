#include "DiscardLabConfirm.h"

#include <QCheckBox>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

namespace forkscope::ui {

QString discardLabConfirmKey()
{
    return QStringLiteral("confirm/discardManagedLab");
}

bool confirmDiscardLab(QWidget* parent, const QString& verb)
{
    QSettings settings;
    if (!settings.value(discardLabConfirmKey(), true).toBool())
        return true;
    QMessageBox box(
        QMessageBox::Warning, QObject::tr("%1?").arg(verb),
        QObject::tr("%1 archives the lab environment and discards its anvil chain.").arg(verb),
        QMessageBox::Cancel, parent);
    box.setObjectName(QStringLiteral("discardLabConfirm"));
    box.setInformativeText(
        QObject::tr("The indexed data stays in the database and can still be opened and "
                    "exported from Environments, but the chain it came from cannot be indexed "
                    "again. The next start makes a fresh anvil and a new environment."));
    QPushButton* go = box.addButton(verb, QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    auto* dontAsk = new QCheckBox(QObject::tr("Don't ask again"), &box);
    box.setCheckBox(dontAsk);
    box.exec();
    if (box.clickedButton() != go)
        return false;
    if (dontAsk->isChecked())
        settings.setValue(discardLabConfirmKey(), false);
    return true;
}

} // namespace forkscope::ui
