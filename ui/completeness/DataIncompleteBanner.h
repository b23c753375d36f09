#pragma once

#include "health/NodeHealth.h"
#include "indexer/CompletenessAlert.h"

#include <QFrame>
#include <QList>

class QLabel;
class QPushButton;

namespace forkscope::ui {

// The red band across the top of the window while any range is not proven complete (an
// open completeness alert): it names the node, the blocks and what is missing, and offers
// Repair..., which asks which node to fetch from. It cannot be missed and is never shown
// over complete data. It only renders the snapshot it is given and emits what the user
// chose; the engine does the work.
class DataIncompleteBanner : public QFrame
{
    Q_OBJECT
public:
    explicit DataIncompleteBanner(QWidget* parent = nullptr);

    void setAlerts(const QList<indexer::CompletenessAlert>& alerts,
                   const QList<health::NodeHealth>& nodes);
    QString text() const;
    QPushButton* repairButton() const { return m_repair; }

signals:
    void repairRequested(quint64 fromBlock, const QString& node);

private:
    void openRepairDialog();

    QLabel* m_text;
    QPushButton* m_repair;
    QList<indexer::CompletenessAlert> m_alerts;
    QList<health::NodeHealth> m_nodes;
};

} // namespace forkscope::ui
