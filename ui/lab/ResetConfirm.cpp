#include "ResetConfirm.h"

#include <QMessageBox>
#include <QPushButton>

namespace forkscope::ui {

bool confirmLabReset(QWidget* parent, const QString& environmentId)
{
    QMessageBox box(QMessageBox::Question, QObject::tr("Reset lab environment"),
                    QObject::tr("Reset the lab environment %1?").arg(environmentId),
                    QMessageBox::Cancel, parent);
    box.setObjectName(QString::fromLatin1(kLabResetConfirmName));
    box.setInformativeText(
        QObject::tr(
            "This will:\n"
            "1. stop indexing;\n"
            "2. reset the managed anvil (anvil_reset): its chain starts again from genesis;\n"
            "3. archive environment %1: its rows and checkpoint are kept, never deleted and "
            "never mixed with the new ones, and it becomes read-only (View > Environments "
            "opens it);\n"
            "4. open a new environment, deploy a new demo token and index the fresh chain;\n"
            "5. check the invariants once the new environment has caught up.\n\n"
            "Nothing in the database is deleted.")
            .arg(environmentId));
    QPushButton* go = box.addButton(QObject::tr("Reset"), QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == go;
}

} // namespace forkscope::ui
