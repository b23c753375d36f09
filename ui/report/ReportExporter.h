#pragma once

#include "report/CheckpointReport.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

class EnvironmentWindow;

// Checkpoint reports for the window: File > Export (JSON, CSV or PDF by suffix) and the
// report an environment window shows. The engine builds each report on its thread
// (re-verifying each checkpoint hash against the node now); this keeps the tickets
// requestReport returned and routes each answer by its ticket to the export or the window
// that asked. Answers for tickets it does not hold (another caller's, or a closed window's)
// are dropped.
class ReportExporter : public QObject
{
    Q_OBJECT
public:
    explicit ReportExporter(engine::EngineApi* host, QObject* parent = nullptr);

    // The path the user typed, with the chosen filter's extension when its own suffix names
    // no format ("report" with "PDF report (*.pdf)" is report.pdf), instead of failing.
    static QString withFormatSuffix(const QString& path, const QString& selectedFilter);
    // The tickets of the reports asked for and not answered yet.
    QList<quint64> pendingTickets() const { return m_jobs.keys(); }

public slots:
    // The format follows the suffix (.json, .csv, .pdf); the file is written when the
    // report arrives, and exportFinished says how it went (at once for a bad suffix).
    // environmentId: an archived (or any) environment; empty is the live one.
    void exportReport(const QString& path, const QString& environmentId = QString());
    // Fills `window` with its environment's report once it arrives.
    void requestFor(forkscope::ui::EnvironmentWindow* window);

signals:
    void exportFinished(const QString& path, bool ok, const QString& message);
    // For the event log: "info" or "error", and what happened.
    void logMessage(const QString& level, const QString& text);

private:
    struct Job
    {
        QString exportPath;                 // non-empty: an export
        QString environmentId;              // the export's environment; empty: the live one
        QPointer<EnvironmentWindow> window; // otherwise the window it fills
    };
    void applyReport(quint64 ticket, const report::CheckpointReport& report);
    void applyFailure(quint64 ticket, const QString& error);
    void write(const QString& path, const report::CheckpointReport& report);

    QPointer<engine::EngineApi> m_host;
    QHash<quint64, Job> m_jobs;
    QString m_appState; // the live environment's state text, from the latest status
    QString m_appStateEnvironment;
};

} // namespace forkscope::ui
