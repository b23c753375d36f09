#pragma once

#include <QDialog>
#include <QJsonObject>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace forkscope::ui {

// Lab > Fault proxy...: the knobs of one lab node (a FaultProxy in front of anvil),
// prefilled with its current values; the node the indexer reads is marked "indexed".
class FaultProxyDialog : public QDialog
{
    Q_OBJECT
public:
    FaultProxyDialog(const QStringList& nodes, const QList<QJsonObject>& knobs,
                     const QString& indexedNode, QWidget* parent = nullptr);
    int node() const;
    QString nodeLabel(int node) const; // the list's text for it
    QJsonObject changes() const;       // every knob, as FaultProxy::applyKnobs takes them
    void setNode(int node);
    QCheckBox* offlineBox() const { return m_offline; }
    QSpinBox* latencyBox() const { return m_latency; }
    QSpinBox* lagBox() const { return m_lag; }
    QDoubleSpinBox* errorRateBox() const { return m_errorRate; }
    QSpinBox* logCapBox() const { return m_logCap; }
    QComboBox* capModeBox() const { return m_capMode; }
    QDoubleSpinBox* dropLogRateBox() const { return m_dropLogRate; }
    QDoubleSpinBox* dropBlockRateBox() const { return m_dropBlockRate; }
    QCheckBox* dropInReceiptsBox() const { return m_dropInReceipts; }

private:
    void load(int node);
    QList<QJsonObject> m_knobs;
    QComboBox* m_node;
    QCheckBox* m_offline;
    QSpinBox* m_latency;
    QDoubleSpinBox* m_errorRate;
    QSpinBox* m_lag;
    QSpinBox* m_logCap;
    QComboBox* m_capMode;
    QDoubleSpinBox* m_dropLogRate;
    QDoubleSpinBox* m_dropBlockRate;
    QCheckBox* m_dropInReceipts;
};

} // namespace forkscope::ui
