#include "InjectReorgDialog.h"
#include "lab/ReorgTxMode.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

namespace forkscope::ui {

InjectReorgDialog::InjectReorgDialog(QWidget* parent)
    : QDialog(parent), m_depth(new QSpinBox(this)), m_mode(new QComboBox(this))
{
    setWindowTitle(tr("Inject reorg"));
    m_depth->setRange(1, 64);
    m_depth->setValue(5);
    m_depth->setSuffix(tr(" blocks"));
    m_mode->addItem(tr("Keep them (same transfers, new block hashes)"),
                    int(lab::ReorgTxMode::Keep));
    m_mode->addItem(tr("Drop them (the transfers vanish)"), int(lab::ReorgTxMode::Drop));
    m_mode->addItem(tr("Move them one block later"), int(lab::ReorgTxMode::Move));
    auto* form = new QFormLayout(this);
    form->addRow(
        new QLabel(tr("anvil_reorg replaces the newest blocks with a new branch. The indexer "
                      "should roll back to the fork point and re-index; the invariant "
                      "check runs once it has caught up.")));
    m_depth->setToolTip(tr("1 to 64 blocks (anvil_reorg's limit here)"));
    form->addRow(tr("Depth (1 to 64)"), m_depth);
    form->addRow(tr("Transactions of the replaced blocks"), m_mode);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Inject"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

int InjectReorgDialog::depth() const
{
    return m_depth->value();
}

int InjectReorgDialog::txMode() const
{
    return m_mode->currentData().toInt();
}

void InjectReorgDialog::setDepth(int depth)
{
    m_depth->setValue(depth);
}

void InjectReorgDialog::setTxMode(int mode)
{
    m_mode->setCurrentIndex(std::max(0, m_mode->findData(mode)));
}

} // namespace forkscope::ui
