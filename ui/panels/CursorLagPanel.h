#pragma once

#include "PlotPanel.h"

#include <QHash>
#include <QSet>
#include <optional>

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// Cursor lag: the node's head and the checkpoint, the gap between them shaded and, on the
// right axis, counted, with the ETA and the freshness of the last commit in the summary. Fed by the
// host's snapshots; draws nothing until an environment is indexing. A contract added to the
// environment gets a series of its own on the right axis while it backfills: the blocks it
// still has to go to the environment's checkpoint, ending at 0 when it joins.
class CursorLagPanel : public PlotPanel
{
    Q_OBJECT
public:
    enum Series { Head, Checkpoint, Lag };

    explicit CursorLagPanel(engine::EngineApi* host, QWidget* parent = nullptr);
    // The head the chart draws for a snapshot: the one its lag is counted from.
    static std::optional<quint64> chartedHead(const engine::EngineStatus& s);
    // The series of `contract`'s backfill (0x, lowercase), or -1 when it never had one.
    int backfillSeries(const QString& contract) const
    {
        return m_backfillSeries.value(contract, -1);
    }
    // Whether that backfill was still going in the last snapshot.
    bool isBackfilling(const QString& contract) const { return m_backfilling.contains(contract); }

private:
    void apply(const engine::EngineStatus& s);
    void applyBackfills(const engine::EngineStatus& s, double t);

    QHash<QString, int> m_backfillSeries; // by contract, once it has backfilled
    QSet<QString> m_backfilling;          // in the last snapshot
    QString m_backfillEnvironment;        // of the last snapshot
};

} // namespace forkscope::ui
