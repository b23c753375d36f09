#include "FaultProxyDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QPushButton>
#include <QSpinBox>

namespace forkscope::ui {

FaultProxyDialog::FaultProxyDialog(const QStringList& nodes, const QList<QJsonObject>& knobs,
                                   const QString& indexedNode, QWidget* parent)
    : QDialog(parent), m_knobs(knobs), m_node(new QComboBox(this)),
      m_offline(new QCheckBox(tr("offline"), this)), m_latency(new QSpinBox(this)),
      m_errorRate(new QDoubleSpinBox(this)), m_lag(new QSpinBox(this)),
      m_logCap(new QSpinBox(this)), m_capMode(new QComboBox(this)),
      m_dropLogRate(new QDoubleSpinBox(this)), m_dropBlockRate(new QDoubleSpinBox(this)),
      m_dropInReceipts(new QCheckBox(tr("also from eth_getBlockReceipts"), this))
{
    setWindowTitle(tr("Fault proxy"));
    // "indexed" where the indexer reads now: a repair may have switched it to another node.
    for (int i = 0; i < nodes.size(); ++i)
        m_node->addItem(tr("node %1 (%2)%3")
                            .arg(i + 1)
                            .arg(nodes[i], nodes[i] == indexedNode ? tr(", indexed") : QString()));
    m_latency->setRange(0, 60000);
    m_latency->setSuffix(tr(" ms"));
    m_errorRate->setRange(0, 1);
    m_errorRate->setSingleStep(0.05);
    m_errorRate->setDecimals(2);
    m_lag->setRange(0, 100000);
    m_lag->setSuffix(tr(" blocks"));
    m_logCap->setRange(0, 1000000);
    m_logCap->setSpecialValueText(tr("no cap"));
    m_capMode->addItem(tr("silent (truncates)"), QStringLiteral("silent"));
    m_capMode->addItem(tr("announced (error reply)"), QStringLiteral("announced"));
    for (QDoubleSpinBox* rate : {m_dropLogRate, m_dropBlockRate}) {
        rate->setRange(0, 1);
        rate->setSingleStep(0.05);
        rate->setDecimals(2);
    }
    m_dropLogRate->setToolTip(tr("Leaves each log out with this probability, the same logs in "
                                 "every answer (not a prefix): only the receipts proof "
                                 "(--verify receipts, Lab > Verify receipts) catches all of "
                                 "them"));
    m_dropBlockRate->setToolTip(tr("Leaves every log of a block out with this probability, in "
                                   "every answer: the bloom check catches it"));
    auto* form = new QFormLayout(this);
    form->addRow(tr("Node"), m_node);
    form->addRow(QString(), m_offline);
    form->addRow(tr("Added latency"), m_latency);
    form->addRow(tr("Error rate (HTTP 503 / JSON-RPC)"), m_errorRate);
    form->addRow(tr("Lag (serve the head as if N back)"), m_lag);
    form->addRow(tr("eth_getLogs result cap"), m_logCap);
    form->addRow(tr("Cap mode"), m_capMode);
    form->addRow(tr("Drop random logs"), m_dropLogRate);
    form->addRow(tr("Drop every log of random blocks"), m_dropBlockRate);
    form->addRow(QString(), m_dropInReceipts);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Apply"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    connect(m_node, &QComboBox::currentIndexChanged, this, &FaultProxyDialog::load);
    load(0);
}

void FaultProxyDialog::load(int node)
{
    const QJsonObject k = m_knobs.value(node);
    m_offline->setChecked(k.value(QStringLiteral("offline")).toBool());
    m_latency->setValue(k.value(QStringLiteral("latencyMs")).toInt());
    m_errorRate->setValue(k.value(QStringLiteral("errorRate")).toDouble());
    m_lag->setValue(k.value(QStringLiteral("lagBlocks")).toInt());
    m_logCap->setValue(
        int(std::min<qint64>(1000000, k.value(QStringLiteral("logCap")).toInteger())));
    m_capMode->setCurrentIndex(
        std::max(0, m_capMode->findData(k.value(QStringLiteral("logCapMode")).toString())));
    m_dropLogRate->setValue(k.value(QStringLiteral("dropLogRate")).toDouble());
    m_dropBlockRate->setValue(k.value(QStringLiteral("dropBlockRate")).toDouble());
    m_dropInReceipts->setChecked(k.value(QStringLiteral("dropInReceipts")).toBool(true));
}

QString FaultProxyDialog::nodeLabel(int node) const
{
    return m_node->itemText(node);
}

int FaultProxyDialog::node() const
{
    return m_node->currentIndex();
}

void FaultProxyDialog::setNode(int node)
{
    m_node->setCurrentIndex(node);
}

QJsonObject FaultProxyDialog::changes() const
{
    return {{QStringLiteral("offline"), m_offline->isChecked()},
            {QStringLiteral("latencyMs"), m_latency->value()},
            {QStringLiteral("errorRate"), m_errorRate->value()},
            {QStringLiteral("lagBlocks"), m_lag->value()},
            {QStringLiteral("logCap"), m_logCap->value()},
            {QStringLiteral("logCapMode"), m_capMode->currentData().toString()},
            {QStringLiteral("dropLogRate"), m_dropLogRate->value()},
            {QStringLiteral("dropBlockRate"), m_dropBlockRate->value()},
            {QStringLiteral("dropInReceipts"), m_dropInReceipts->isChecked()}};
}

} // namespace forkscope::ui
