#pragma once

#include "report/CheckpointReport.h"

#include <QWidget>

class QLabel;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

class TableBrowser;

// One environment opened on its own, read-only, side by side with the live window: its
// checkpoint claim (re-verified against the node when opened), its counts, and its
// transfers and balances. It only reads (table pages from `host`, and a report it is
// given), never writes.
class EnvironmentWindow : public QWidget
{
    Q_OBJECT
public:
    EnvironmentWindow(const QString& environmentId, bool archived, engine::EngineApi* host,
                      QWidget* parent = nullptr);

    QString environmentId() const { return m_env; }
    void applyReport(const report::CheckpointReport& report);
    QString summaryText() const;
    TableBrowser* transfers() const { return m_transfers; }
    TableBrowser* balances() const { return m_balances; }

signals:
    // Export report...: archived environments export like the live one.
    void exportRequested(const QString& environmentId);

private:
    QString m_env;
    QLabel* m_summary;
    TableBrowser* m_transfers;
    TableBrowser* m_balances;
};

} // namespace forkscope::ui
