#pragma once

#include "health/NodeHealth.h"
#include "indexer/CompletenessAlert.h"

#include <QDialog>

class QComboBox;

namespace forkscope::ui {

// Confirms a repair: what it will roll back (everything from the first bad block, in one
// transaction, recorded like a reorg with reason "repair"), and which node to fetch the
// range from again. It proposes a node that is caught up and was not caught dropping logs.
class RepairDialog : public QDialog
{
    Q_OBJECT
public:
    RepairDialog(const indexer::CompletenessAlert& alert, const QList<health::NodeHealth>& nodes,
                 QWidget* parent = nullptr);

    quint64 fromBlock() const { return m_from; }
    QString node() const;
    // The node proposed by default (pure, for tests): the first caught-up node that is not
    // the one that dropped logs; else the first node that did not drop logs; else `bad`.
    static QString proposedNode(const QList<health::NodeHealth>& nodes, const QString& bad);

private:
    quint64 m_from;
    QComboBox* m_nodes;
};

} // namespace forkscope::ui
