#pragma once

#include "LabRunProgress.h"
#include "LabRunResult.h"
#include "LabRunSpec.h"

#include <QString>
#include <functional>
#include <memory>

namespace forkscope::lab {

// `forkscope lab run`: a foreign indexer in the lab. It starts a managed anvil with a fault
// proxy in front (the node the indexer is given), a throwaway PostgreSQL cluster unless a
// database is given, deploys two demo tokens, starts the indexer (ForeignIndexer), then
// plays the scenario's steps. After each step that asks for it, it waits until the
// indexer's table, read through the audit query, reaches the node's head minus the
// confirmations (or the timeout), and audits the table against anvil itself with
// `forkscope audit`'s proofs (foreign::ForeignAuditor). It stops everything it started.
//
// Blocking, for the command line or a worker thread (the app's, engine/LabRunService.h): it
// waits on the node, the database and the indexer's process, never on an event loop, and
// checks stopRequested between steps and while it waits.
class LabRun
{
public:
    struct Options : LabRunSpec
    {
        std::function<bool()> stopRequested; // Ctrl-C, Cancel: the run ends early, cleaning up
        std::function<void(const LabRunProgress&)> onProgress; // live progress
    };

    explicit LabRun(Options options);
    ~LabRun();
    LabRun(const LabRun&) = delete;
    LabRun& operator=(const LabRun&) = delete;

    // Throws DevnetError, PgLabError or ForeignIndexerError when the lab cannot be set up;
    // anything that goes wrong after that ends the run with `aborted` set.
    LabRunResult run();

private:
    struct Lab;
    void note(const QString& what);
    void report(std::optional<LabRunEvent> event);
    bool stopRequested() const { return m_options.stopRequested && m_options.stopRequested(); }
    void setUp();
    void play(const LabStep& step, int index);
    LabRunAudit waitAndAudit(int index, const QString& steps);
    bool pause(int ms); // false when the run must stop

    Options m_options;
    LabRunResult m_result;
    LabRunProgress m_progress;
    std::unique_ptr<Lab> m_lab;
};

} // namespace forkscope::lab
