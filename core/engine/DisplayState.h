#pragma once

#include "EngineStatus.h"
#include "text/Count.h"

#include <QString>
#include <optional>

namespace forkscope::engine {

// The one state every status text of the app is derived from: the cursor panel's header,
// the status bar, the checkpoint report's "as seen" line. Before it, each place read a
// different field and they contradicted each other ("synced" with lag 1, "ETA 6 s" while
// paused, "synced" after Stop engine). Pure: derived from an EngineStatus value only.
struct DisplayState
{
    enum class Kind {
        Starting,
        Syncing,
        Synced,
        Paused,
        Stopped,
        DevnetStopped, // the user stopped the managed anvil: an outage chosen on purpose
        NodeUnreachable,
        DataIncomplete,
        Failed,
    };
    // How the state should look; the GUI maps it to its palette.
    enum class Tone { Neutral, Good, Warning, Bad };

    Kind kind = Kind::Starting;
    // Failed: why; NodeUnreachable: the node and its error; Syncing: why not synced when the
    // lag is 0 (else empty).
    QString reason;
    // Other problems true at the same time, below the one the kind names (an unreachable
    // node that also has no contracts to index): said, never hidden by the first.
    QStringList also;

    // "starting", "syncing", "synced", "paused", "stopped", "devnet stopped",
    // "node unreachable", "data incomplete", "failed: <reason>".
    QString text() const;
    Tone tone() const;
    // An ETA is a promise of progress: only while syncing.
    bool showsEta() const { return kind == Kind::Syncing; }
    // Rates describe a running indexer: not while paused, stopped or failed.
    bool showsRates() const;

    friend bool operator==(const DisplayState&, const DisplayState&) = default;
};

// Precedence, first match wins: failed (the engine itself), stopped, devnet stopped (on
// purpose), failed (a database the indexer cannot use), data incomplete (never green over a
// gap), node unreachable (before the indexer's other failures: a dead --rpc node is not
// blamed on missing contracts), failed (an indexer that will not retry), paused, starting
// (no environment or nothing known yet), then synced (the held lag 0 and the indexed node
// not behind the best watched node) or syncing. The problems a higher state hides are in
// `also`, in the same order.
DisplayState displayState(const EngineStatus& s);

// Whether Pause indexing and Verify have an indexer to act on: not when the engine failed or
// was stopped, nor when the indexer stopped for good (no contracts, a database it cannot
// use, a deep reorg: EngineStatus::indexerFailure), even while another problem names the
// state (a dead node without contracts reads "node unreachable").
bool indexerCommandable(const EngineStatus& s);

// The indexer stopped at a reorg deeper than its limit and waits for the user's choice
// (raise the limit, or reset the environment): the deep-reorg banner offers it, and the
// error banner's Retry or Choose database... would only lead back to the same stop.
bool deepReorgChoicePending(const EngineStatus& s);

// The lag of this one snapshot: head - checkpoint, unknown without both or when the node is
// unreachable (its last head is stale).
std::optional<quint64> currentLag(const EngineStatus& s);
// The lag the texts show: the held lag when the engine host damped it (EngineStatus::
// heldLag), else currentLag.
std::optional<quint64> displayLag(const EngineStatus& s);
// The blocks an added contract's backfill still has to go before it joins: up to the
// environment's checkpoint, from its own (or from its first block, before its first batch).
std::optional<quint64> backfillBlocksToGo(const EngineStatus& s,
                                          const indexer::SourceBackfillProgress& b);

// How far the indexed node's head is behind the best head among the watched nodes, when it
// is more than kNodeBehindTolerance (polls of two nodes are not simultaneous).
inline constexpr quint64 kNodeBehindTolerance = 2;
std::optional<quint64> indexedNodeBehind(const EngineStatus& s);

namespace text {
// "1 block", "2 blocks", "0 blocks".
using forkscope::text::count;
// "lag 1 block", "lag 12 blocks", "lag unknown".
QString lag(std::optional<quint64> blocks);
// A rate never shown negative or as NaN (a reset restarts its counters): "0 events/s".
QString rate(double perSecond, const QString& unit);
// The cursor panel's header: "syncing | lag 12 blocks | ETA 6.0 s | 840 events/s | last
// commit 0.4 s ago"; paused and stopped say so and drop the ETA and rates.
QString cursorHeader(const EngineStatus& s, const QDateTime& now);
// The status bar's node: "node: URL" for an external node; for the managed lab, the URL the
// indexer reads named for what it is. A lab node is a fault proxy: whoever points a tool at
// that URL gets the faults injected from the Lab toolbar, so it is never called "anvil".
QString nodeLabel(const EngineStatus& s);
} // namespace text

} // namespace forkscope::engine
