#pragma once

#include "chain/TokenAmount.h"
#include "forktree/ForkTreeSnapshot.h"
#include "health/NodeHealth.h"
#include "indexer/CompletenessAlert.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::report {

// What an export-time look at the node said about one checkpoint: a checkpoint is a claim to
// verify, and "could not ask" is not "wrong" (docs/design.md, "The checkpoint is a claim
// about a finished prefix").
enum class VerificationStatus {
    NotChecked,  // no node was given
    Canonical,   // the node's block at that height has the checkpoint's hash
    Reorged,     // the node's block at that height has another hash (see nodeHash)
    Missing,     // the node has no block at that height: it is behind, or was reset
    Unreachable, // the node did not answer usefully (see error); nothing is concluded
};
// "not-checked", "canonical", "reorged", "missing", "unreachable" (the JSON/CSV spelling).
QString statusName(VerificationStatus status);

struct Verification
{
    VerificationStatus status = VerificationStatus::NotChecked;
    QString nodeHash;  // the node's hash at that height (canonical and reorged)
    QString error;     // unreachable: what went wrong
    QString checkedAt; // UTC ISO 8601, empty when not checked
    QString method;    // how: "eth_getBlockByNumber(N) on URL"
};

struct EnvironmentInfo
{
    QString id;
    quint64 chainId = 0;
    QString genesisHash;
    QString rpcUrl;
    QString createdAt;
    QString archivedAt; // empty while live
    bool archived() const { return !archivedAt.isEmpty(); }
    // Contracts archived out of this environment (forkscope archive-contract): when, and the
    // archived environment that holds their rows.
    struct ArchivedContract
    {
        QString contract;
        QString archivedAt;
        QString archiveEnvironmentId;
    };
    QList<ArchivedContract> archivedContracts;
};

struct CheckpointEntry
{
    QString sourceId;
    qint64 blockNumber = 0;
    QString blockHash;
    QString policyVersion;
    int generation = 0;
    std::optional<qint64> startBlock;
    QString updatedAt;
    QString verifiedAt; // when the indexer last re-verified the hash (empty: never)
    Verification verification;
};

// One reorg_diff_items row; which fields are set depends on the kind (ReorgRollback.h).
struct ReorgDiffItem
{
    QString kind;
    std::optional<qint64> blockNumber;
    std::optional<qint64> logIndex;
    QString txHash;
    QString contract;
    QString holder;
    QString fromAddr;
    QString toAddr;
    QString value;
    QString beforeValue;
    QString afterValue;
    QString eventKey;
};

struct ReorgEntry
{
    qint64 id = 0;
    QString sourceId;
    QString detectedAt;
    qint64 oldBlockNumber = 0;
    QString oldBlockHash;
    qint64 forkBlockNumber = 0;
    QString forkBlockHash;
    qint64 depth = 0;
    QString reason;
    qint64 rowsRemoved = 0;
    qint64 deliveredOutboxRows = 0;
    QMap<QString, qint64> diffCounts; // kind -> rows in reorg_diff_items
    qint64 diffItemsTotal = 0;
    QList<ReorgDiffItem> diffItems; // the first kMaxDiffItemsPerReorg, in insertion order
    bool diffTruncated = false;
};

struct BackfillStatusCount
{
    QString status; // pending / running / done / failed
    qint64 ranges = 0;
    qint64 blocks = 0;
    qint64 attempts = 0;
    QStringList lastErrors; // distinct non-empty last_error values, at most a few
};

struct Counts
{
    qint64 blocks = 0;
    qint64 logs = 0;
    qint64 transfers = 0;
    qint64 contracts = 0; // distinct contracts with transfers
    qint64 balances = 0;  // token_balances rows
    qint64 holders = 0;   // distinct holders with a non-zero balance
    qint64 reorgs = 0;
    qint64 orphanedBlocks = 0; // orphaned_blocks rows: blocks rollbacks removed, kept
    qint64 outboxPending = 0;
    qint64 outboxDelivered = 0;
    qint64 outboxFailed = 0; // refused for good (failed_at)
    QList<BackfillStatusCount> backfill;
};

struct SeriesPoint
{
    double x = 0;
    double y = 0;
};

struct ReorgPoint
{
    double time = 0; // unix seconds (detected_at)
    qint64 depth = 0;
    QString reason;
};

// Chart data derivable from the database alone, each capped at kMaxSeriesPoints.
struct Series
{
    QList<SeriesPoint> blocks; // x: block_timestamp (unix s), y: block number
    qint64 blocksTotal = 0;    // rows before downsampling
    QList<ReorgPoint> reorgs;
    QList<SeriesPoint> outboxDelivered; // x: delivered_at (unix s), y: rows delivered so far
    qint64 outboxDeliveredTotal = 0;
    // x: block number, y: undelivered rows at that block (or, when downsampled, in the
    // blocks from x up to the next point's x).
    QList<SeriesPoint> outboxPendingByBlock;
};

// The node as seen at export time (per-node history is not stored).
struct NodeSummary
{
    QString url;
    bool checked = false;   // a node was given
    bool reachable = false; // it answered eth_chainId, eth_blockNumber and block 0
    std::optional<quint64> chainId;
    std::optional<quint64> head;
    QString genesisHash;
    bool sameChain = false; // chain id and genesis equal the environment's
    QString error;
    QString checkedAt;
};

enum class InvariantState { NotChecked, Hold, Violated };
QString invariantStateName(InvariantState state); // "not-checked", "hold", "violated"

struct InvariantVerdict
{
    InvariantState state = InvariantState::NotChecked;
    QString summary; // one line; says why when not checked
    QStringList violations;
    QStringList contractsChecked;
};

// Whether the indexed data is proven complete: "complete", or "data incomplete" while any
// completeness alert (a range a provider did not return whole) is open.
struct Completeness
{
    QString state = QStringLiteral("complete");
    QList<indexer::CompletenessAlert> openAlerts;
    qint64 resolvedAlerts = 0;
};

// Everything known about one environment, from the database plus an optional look at the
// node at export time: what the app's Export and `forkscope report` write as JSON, CSV
// and PDF. A plain copyable value: ReportBuilder builds it on a worker thread, the GUI
// renders it.
class CheckpointReport
{
public:
    static constexpr int kSchemaVersion = 1;
    static constexpr int kMaxSeriesPoints = 2000;
    static constexpr int kMaxDiffItemsPerReorg = 200;

    // UTF-8 JSON, schema in docs/report-schema.md.
    QByteArray toJson() const;
    // RFC 4180: CRLF line ends, a header row, then one row per checkpoint and one per
    // reorg, told apart by the record_type column.
    QByteArray toCsv() const;
    static QStringList csvColumns();

    QString generatedAt; // UTC ISO 8601
    QString generator;   // "forkscope <version>"
    // The app's state when the live environment was exported from the window ("synced",
    // "paused", "data incomplete", ... from engine::DisplayState), so a report says what
    // the window said. Empty from the command line and for other environments.
    QString appState;
    QString databasePath;
    EnvironmentInfo environment;
    QList<CheckpointEntry> checkpoints;
    QList<ReorgEntry> reorgs;
    Counts counts;
    Series series;
    NodeSummary node;
    InvariantVerdict invariants;
    Completeness completeness;

    // For the PDF only (not in the JSON or CSV, whose schema is the database's): what makes
    // it readable in human units, and what the app saw that the database does not keep.
    // Token metadata by contract (lower-case hex) for the amounts, as the node answered
    // decimals() and symbol(); a token missing here is shown in raw units, said so.
    QMap<QString, chain::TokenInfo> tokens;
    QString tokensReadFrom; // the node they were read from (empty: none read)
    // A live export from the app: node health as the app polled it since the environment
    // was created (the database keeps no per-node history), and each node at export.
    struct NodeTrack
    {
        QString url;
        QList<health::HealthSample> samples;
    };
    QList<NodeTrack> nodeHistory;
    QList<health::NodeHealth> nodesAtExport;
    // The fork tree of the indexed range as the Fork tree tab reads it: the spine, the
    // branches kept and the node heads, bounded (forktree/ForkTreeLimits.h), laid out where
    // the report is built (never on the GUI thread that writes the PDF).
    forktree::ForkTreeSnapshot forkTree;
};

} // namespace forkscope::report

Q_DECLARE_METATYPE(forkscope::report::CheckpointReport)
