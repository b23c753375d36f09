#include "ReportPdfSections.h"
#include "Palette.h"
#include "ReportCharts.h"
#include "ReportText.h"
#include "ShortHex.h"
#include "forktree/ForkTreePainter.h"
#include "widgets/LocalTime.h"

#include <QDateTime>
#include <QMap>

namespace forkscope::ui::pdfsections {

using namespace forkscope::report;
using namespace pdf;
using reporttext::count;
using reporttext::number;

namespace {

constexpr int kDiffItemsInPdf = 10; // per reorg; the JSON export carries up to 200

QString orDash(const QString& s)
{
    return s.isEmpty() ? QStringLiteral("–") : s;
}

// The checker's summary names its verdict first ("invariants hold: 36 blocks, ..."); the
// headline says it once, in its own words.
QString withoutVerdict(const QString& summary)
{
    for (const QLatin1String prefix :
         {QLatin1String("invariants hold: "), QLatin1String("invariants violated: "),
          QLatin1String("not checked: ")})
        if (summary.startsWith(prefix, Qt::CaseInsensitive))
            return summary.mid(prefix.size());
    return summary;
}

QString verdictText(const InvariantVerdict& v)
{
    switch (v.state) {
    case InvariantState::Hold:
        return QStringLiteral("Invariants hold: ") + withoutVerdict(v.summary);
    case InvariantState::Violated:
        return QStringLiteral("Invariants VIOLATED: ") + withoutVerdict(v.summary);
    case InvariantState::NotChecked:
        break;
    }
    return QStringLiteral("Invariants not checked: ") + withoutVerdict(v.summary);
}

QString checkpointInWords(const CheckpointEntry& c)
{
    const Verification& v = c.verification;
    switch (v.status) {
    case VerificationStatus::Canonical:
        return QStringLiteral("block %1: the node has the same block at export").arg(c.blockNumber);
    case VerificationStatus::Reorged:
        return QStringLiteral("block %1: the node has ANOTHER block at that height (reorged)")
            .arg(c.blockNumber);
    case VerificationStatus::Missing:
        return QStringLiteral("block %1: the node has no block at that height (behind, or reset)")
            .arg(c.blockNumber);
    case VerificationStatus::Unreachable:
        return QStringLiteral("block %1: not verified, the node did not answer").arg(c.blockNumber);
    case VerificationStatus::NotChecked:
        break;
    }
    return QStringLiteral("block %1: not verified (no node given)").arg(c.blockNumber);
}

QString blockTime(double unixSeconds)
{
    return QDateTime::fromSecsSinceEpoch(qint64(unixSeconds)).toString(QStringLiteral("HH:mm:ss"));
}

QString indexedInWords(const CheckpointReport& r)
{
    const Series& s = r.series;
    if (s.blocks.isEmpty())
        return QStringLiteral("nothing yet");
    // Block times from block 1 when the genesis keeps an older time (ReportCharts).
    const double from = s.blocks.value(ReportCharts::genesisApart(r) ? 1 : 0).x;
    return QStringLiteral("%1, blocks %2 to %3, block times %4 to %5")
        .arg(count(r.counts.blocks, QStringLiteral("block"), QStringLiteral("blocks")))
        .arg(qint64(s.blocks.first().y))
        .arg(qint64(s.blocks.last().y))
        .arg(blockTime(from), blockTime(s.blocks.last().x));
}

QString reorgsInWords(const CheckpointReport& r)
{
    if (r.reorgs.isEmpty())
        return QStringLiteral("none");
    qint64 deepest = 0;
    qint64 transfers = 0;
    QMap<QString, int> reasons;
    for (const ReorgEntry& e : r.reorgs) {
        deepest = std::max(deepest, e.depth);
        transfers += e.diffCounts.value(QStringLiteral("transfer_removed"));
        ++reasons[e.reason];
    }
    QStringList byReason;
    for (auto it = reasons.cbegin(); it != reasons.cend(); ++it)
        byReason << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
    QString words =
        QStringLiteral("%1 (%2), the deepest %3; %4 rolled back")
            .arg(r.reorgs.size())
            .arg(byReason.join(QStringLiteral(", ")))
            .arg(count(deepest, QStringLiteral("block"), QStringLiteral("blocks")))
            .arg(count(transfers, QStringLiteral("transfer"), QStringLiteral("transfers")));
    if (r.counts.orphanedBlocks > 0)
        words += QStringLiteral("; %1 kept")
                     .arg(count(r.counts.orphanedBlocks, QStringLiteral("orphaned block"),
                                QStringLiteral("orphaned blocks")));
    return words;
}

QString nodeInWords(const NodeSummary& n)
{
    if (!n.checked)
        return QStringLiteral("none given: nothing was verified");
    if (!n.reachable)
        return QStringLiteral("%1 did not answer: %2").arg(n.url, n.error);
    return QStringLiteral("%1 answered: head %2, %3")
        .arg(n.url)
        .arg(n.head.value_or(0))
        .arg(n.sameChain ? QStringLiteral("the environment's chain")
                         : QStringLiteral("ANOTHER chain (reset, or the URL points elsewhere)"));
}

QColor nodeColor(const NodeSummary& n)
{
    return n.checked && n.reachable && n.sameChain ? QColor(Qt::black) : kRed;
}

} // namespace

void summary(Flow& f, const CheckpointReport& r, const QImage& cursorChart)
{
    const EnvironmentInfo& env = r.environment;
    f.text(QStringLiteral("Forkscope report"), sans(22, true));
    f.text(QStringLiteral("Environment %1 · chain %2").arg(env.id).arg(env.chainId),
           sans(12, true));
    f.text(env.archived()
               ? QStringLiteral("Archived at %1 (read-only history); exported %2")
                     .arg(LocalTime::format(env.archivedAt), LocalTime::format(r.generatedAt))
               : QStringLiteral("Live; exported %1").arg(LocalTime::format(r.generatedAt)),
           sans(10), env.archived() ? kGrey : kGreen);
    f.space(pt(8));
    f.verdict(verdictText(r.invariants), Palette::reportVerdict(r.invariants.state));
    // Never green over a gap: an open completeness alert is said on the first page.
    for (const auto& alert : r.completeness.openAlerts) {
        f.space(pt(2));
        f.verdict(QStringLiteral("DATA INCOMPLETE: ") + alert.summary(), Palette::dataIncomplete());
    }
    f.space(pt(6));

    QList<QList<Cell>> rows;
    if (!r.appState.isEmpty())
        rows.append({{QStringLiteral("The app said")}, {r.appState}});
    rows.append({{QStringLiteral("Created")}, {LocalTime::format(env.createdAt)}});
    rows.append({{QStringLiteral("Indexed")}, {indexedInWords(r)}});
    for (const CheckpointEntry& c : r.checkpoints)
        rows.append({{r.checkpoints.size() > 1 ? QStringLiteral("Checkpoint (%1)").arg(c.sourceId)
                                               : QStringLiteral("Checkpoint")},
                     {checkpointInWords(c), Palette::verification(c.verification.status)}});
    if (r.checkpoints.isEmpty())
        rows.append({{QStringLiteral("Checkpoint")}, {QStringLiteral("nothing indexed yet")}});
    rows.append({{QStringLiteral("Data")},
                 r.completeness.openAlerts.isEmpty()
                     ? Cell{QStringLiteral("complete: every indexed block was proven whole%1")
                                .arg(r.completeness.resolvedAlerts > 0
                                         ? QStringLiteral(" (%1 earlier)")
                                               .arg(count(r.completeness.resolvedAlerts,
                                                          QStringLiteral("gap repaired"),
                                                          QStringLiteral("gaps repaired")))
                                         : QString())}
                     : Cell{count(r.completeness.openAlerts.size(), QStringLiteral("open gap"),
                                  QStringLiteral("open gaps")) +
                                QStringLiteral(": see above"),
                            kRed}});
    rows.append(
        {{QStringLiteral("Transfers")},
         {QStringLiteral("%1 of %2, %3 holding a balance")
              .arg(count(r.counts.transfers, QStringLiteral("transfer"),
                         QStringLiteral("transfers")),
                   count(r.counts.contracts, QStringLiteral("token"), QStringLiteral("tokens")),
                   count(r.counts.holders, QStringLiteral("holder"), QStringLiteral("holders")))}});
    rows.append({{QStringLiteral("Reorgs")}, {reorgsInWords(r)}});
    rows.append({{QStringLiteral("Outbox")},
                 {QStringLiteral("%1 waiting, %2 delivered, %3 refused for good")
                      .arg(number(r.counts.outboxPending), number(r.counts.outboxDelivered),
                           number(r.counts.outboxFailed)),
                  r.counts.outboxFailed > 0 ? kRed : QColor(Qt::black)}});
    rows.append({{QStringLiteral("Node at export")}, {nodeInWords(r.node), nodeColor(r.node)}});
    if (!r.nodesAtExport.isEmpty()) {
        QStringList states;
        for (qsizetype i = 0; i < r.nodesAtExport.size(); ++i)
            states << QStringLiteral("node %1 %2")
                          .arg(i + 1)
                          .arg(health::nodeStateName(r.nodesAtExport[i].state));
        rows.append({{QStringLiteral("Nodes watched")}, {states.join(QStringLiteral(", "))}});
    }
    f.table({{QStringLiteral("At a glance"), 1, true}, {QString(), 1}}, rows, 9);
    f.image(cursorChart, pt(250));
    if (ReportCharts::genesisApart(r))
        f.text(QStringLiteral("The genesis block (block 0, %1) keeps the time the node started, "
                              "before this environment; the chart starts at block 1.")
                   .arg(blockTime(r.series.blocks.first().x)),
               sans(7.5), kGrey);
}

// What a node was caught dropping. Its count is cleared when blocks come whole again, or when
// a repair moves reading to another node (nothing reads it any more to say so); the polls of
// this environment still show when it was last seen dropping logs: "none caught" alone would
// hide that.
QString droppedLogsInWords(const CheckpointReport& r, const health::NodeHealth& n)
{
    if (n.droppedLogs > 0)
        return QStringLiteral("%1, last at block %2")
            .arg(
                count(n.droppedLogs, QStringLiteral("drop caught"), QStringLiteral("drops caught")))
            .arg(n.lastDropBlock.value_or(0));
    qint64 lastSeen = 0;
    for (const CheckpointReport::NodeTrack& t : r.nodeHistory)
        if (t.url == n.url)
            for (const health::HealthSample& sample : t.samples)
                if (sample.state == health::NodeState::DroppingLogs)
                    lastSeen = std::max(lastSeen, sample.atMs);
    if (lastSeen == 0)
        return QStringLiteral("none caught");
    return QStringLiteral("none caught now; seen dropping logs until %1")
        .arg(blockTime(double(lastSeen) / 1000.0));
}

void nodeHealth(Flow& f, const CheckpointReport& r, const QImage& chart)
{
    f.heading(QStringLiteral("Node health"));
    if (r.nodeHistory.isEmpty()) {
        f.text(QStringLiteral("The database keeps no per-node history: only a live export from "
                              "the app shows how the nodes behaved. The node as checked at "
                              "export: %1.")
                   .arg(nodeInWords(r.node)),
               sans(9), kGrey);
        return;
    }
    f.text(QStringLiteral("Each watched node's head as the app polled it since this environment "
                          "was created (not stored in the database). A mark is a poll where "
                          "the node was not caught up, in its state's colour."),
           sans(8.5), kGrey);
    f.image(chart, pt(230));
    QList<QList<Cell>> rows;
    for (qsizetype i = 0; i < r.nodesAtExport.size(); ++i) {
        const health::NodeHealth& n = r.nodesAtExport[i];
        rows.append({{QString::number(i + 1)},
                     {n.url},
                     {health::nodeStateName(n.state), Palette::nodeState(n.state).darker(140)},
                     {n.head ? QString::number(*n.head) : QStringLiteral("–")},
                     {droppedLogsInWords(r, n)},
                     {orDash(n.lastError)}});
    }
    f.table({{QStringLiteral("Node"), 1, true},
             {QStringLiteral("URL"), 1, true},
             {QStringLiteral("State at export"), 1, true},
             {QStringLiteral("Head"), 1, true},
             {QStringLiteral("Dropped logs"), 1.2},
             {QStringLiteral("Last error"), 1.5}},
            rows, 8);
}

void checkpoints(Flow& f, const CheckpointReport& r)
{
    f.heading(QStringLiteral("Checkpoints and their verification"));
    if (r.checkpoints.isEmpty()) {
        f.text(QStringLiteral("No checkpoint in this environment."), sans(9), kGrey);
        return;
    }
    for (const CheckpointEntry& c : r.checkpoints) {
        const Verification& v = c.verification;
        f.text(checkpointInWords(c), sans(9.5, true), Palette::verification(v.status));
        QList<QList<Cell>> rows{{{QStringLiteral("Stored hash")}, {c.blockHash}}};
        // The node's hash right under the stored one, whole, so the two can be compared.
        if (v.status == VerificationStatus::Reorged)
            rows.append({{QStringLiteral("Node's hash"), kRed}, {v.nodeHash, kRed}});
        if (v.status == VerificationStatus::Unreachable)
            rows.append({{QStringLiteral("Error")}, {v.error}});
        rows.append(
            {{QStringLiteral("Checked at export")},
             {v.checkedAt.isEmpty()
                  ? QStringLiteral("no node given")
                  : QStringLiteral("%1 by %2").arg(LocalTime::format(v.checkedAt), v.method)}});
        rows.append({{QStringLiteral("Last re-verified by the indexer")},
                     {orDash(LocalTime::format(c.verifiedAt))}});
        rows.append({{QStringLiteral("Updated")}, {LocalTime::format(c.updatedAt)}});
        rows.append({{QStringLiteral("Source, policy, generation")},
                     {QStringLiteral("%1, %2, generation %3")
                          .arg(c.sourceId, c.policyVersion)
                          .arg(c.generation)}});
        f.table({{QStringLiteral("Field"), 1, true}, {QStringLiteral("Value"), 1, false, true}},
                rows, 8);
    }
}

void reorgs(Flow& f, const CheckpointReport& r, const QImage& chart)
{
    f.heading(QStringLiteral("Reorgs"));
    if (r.reorgs.isEmpty()) {
        // No chart of nothing: an empty plot reads as a bug (an axis from 1970).
        f.text(QStringLiteral("No reorg was recorded in this environment."), sans(9), kGrey);
        return;
    }
    f.image(chart, pt(220));
    QList<QList<Cell>> rows;
    for (const ReorgEntry& e : r.reorgs)
        rows.append({{QString::number(e.id)},
                     {LocalTime::format(e.detectedAt)},
                     {e.reason},
                     {QStringLiteral("%1–%2").arg(e.forkBlockNumber + 1).arg(e.oldBlockNumber)},
                     {QString::number(e.depth)},
                     {reporttext::undone(e)}});
    f.table({{QStringLiteral("#"), 1, true},
             {QStringLiteral("Detected"), 1, true},
             {QStringLiteral("Reason"), 1, true},
             {QStringLiteral("Blocks replaced"), 1, true},
             {QStringLiteral("Depth"), 1, true},
             {QStringLiteral("What the rollback undid"), 1}},
            rows, 8);

    for (const ReorgEntry& e : r.reorgs) {
        if (e.diffItems.isEmpty())
            continue;
        const qsizetype shown = std::min<qsizetype>(kDiffItemsInPdf, e.diffItems.size());
        f.text(QStringLiteral("Reorg #%1 (%2, depth %3, fork at block %4 %5): %6")
                   .arg(e.id)
                   .arg(e.reason)
                   .arg(e.depth)
                   .arg(e.forkBlockNumber)
                   .arg(shortHex(e.forkBlockHash))
                   .arg(reporttext::undone(e)),
               sans(8.5, true));
        QList<QList<Cell>> items;
        for (qsizetype i = 0; i < shown; ++i) {
            const ReorgDiffItem& d = e.diffItems[i];
            items.append({{reporttext::kindName(d.kind)},
                          {d.blockNumber ? QString::number(*d.blockNumber) : QStringLiteral("–")},
                          {reporttext::itemDetail(d, r)}});
        }
        f.table({{QStringLiteral("What"), 1, true},
                 {QStringLiteral("Block"), 1, true},
                 {QStringLiteral("Detail"), 1}},
                items, 7.5);
        if (e.diffItemsTotal > shown)
            f.text(QStringLiteral("… and %1 more (the JSON export lists up to %2 per reorg, the "
                                  "app's diff view all of them).")
                       .arg(number(e.diffItemsTotal - shown))
                       .arg(CheckpointReport::kMaxDiffItemsPerReorg),
                   sans(7.5), kGrey);
    }
    if (r.tokens.isEmpty())
        f.text(QStringLiteral("Amounts are in the tokens' base units: their decimals could not be "
                              "read from a node."),
               sans(7.5), kGrey);
}

void forkTree(Flow& f, const CheckpointReport& r)
{
    const forktree::ForkTreeWindow& w = r.forkTree.window;
    if (w.branches.isEmpty()) {
        f.heading(QStringLiteral("Fork tree"));
        f.text(r.reorgs.isEmpty()
                   ? QStringLiteral("No rollback, so no branch to draw.")
                   : QStringLiteral("No branch is kept: the rollbacks' removed blocks are past "
                                    "the retention (--orphan-retention, or the app's setting)."),
               sans(9), kGrey);
        return;
    }
    const forktree::ForkTreeLayout& layout = r.forkTree.layout;
    // As tall as the lanes at their screen size and the legend need (the painter draws at
    // 96 pixels per inch: a pixel is 0.75 pt).
    const double lanes = double(layout.maxLane - layout.minLane) + 1.6;
    const double legend = double(4 + layout.nodes.size()) * 16 + 16;
    const double height = pt(0.75 * std::clamp(std::max(lanes * 36, legend), 120.0, 640.0));
    f.ensure(pt(110) + height); // the heading, its words and the picture on one page
    f.heading(QStringLiteral("Fork tree"));
    f.text(QStringLiteral("Blocks %1 to %2, %3 kept. The canonical chain runs along the "
                          "middle; each branch forks off where its rollback began, coloured by "
                          "the rollback's reason. A node's head on no branch the indexer knew "
                          "is drawn below the chain, as that node's own view.")
               .arg(ForkTreePainter::grouped(w.fromBlock), ForkTreePainter::grouped(w.toBlock),
                    count(w.branches.size(), QStringLiteral("branch"), QStringLiteral("branches"))),
           sans(8.5));
    f.drawing(height, [&](QPainter& p, const QRectF& box) {
        ForkTreePainter::paintLayout(p, box, layout);
    });
    if (w.truncated)
        f.text(QStringLiteral("More than one picture holds: the newest branches and node heads "
                              "are drawn. The app's Fork tree tab walks them all."),
               sans(7.5), kGrey);
}

void outboxAndBackfill(Flow& f, const CheckpointReport& r, const QImage& chart)
{
    f.heading(QStringLiteral("Outbox"));
    f.text(QStringLiteral("%1 waiting, %2 delivered, %3 refused for good.")
               .arg(number(r.counts.outboxPending), number(r.counts.outboxDelivered),
                    number(r.counts.outboxFailed)),
           sans(9));
    if (r.counts.outboxPending + r.counts.outboxDelivered + r.counts.outboxFailed > 0)
        f.image(chart, pt(200));

    f.heading(QStringLiteral("Backfill ranges"));
    if (r.counts.backfill.isEmpty()) {
        f.text(QStringLiteral("No backfill range was recorded."), sans(9), kGrey);
        return;
    }
    QList<QList<Cell>> rows;
    for (const BackfillStatusCount& b : r.counts.backfill)
        rows.append({{b.status, b.status == QLatin1String("failed") ? kRed : QColor(Qt::black)},
                     {number(b.ranges)},
                     {number(b.blocks)},
                     {number(b.attempts)},
                     {b.lastErrors.isEmpty() ? QStringLiteral("–")
                                             : b.lastErrors.join(QStringLiteral("\n"))}});
    f.table({{QStringLiteral("Status"), 1, true},
             {QStringLiteral("Ranges"), 1, true},
             {QStringLiteral("Blocks"), 1, true},
             {QStringLiteral("Attempts"), 1, true},
             {QStringLiteral("Last errors"), 1}},
            rows);
}

void technicalDetails(Flow& f, const CheckpointReport& r)
{
    f.heading(QStringLiteral("Technical details"));
    QList<QList<Cell>> rows{
        {{QStringLiteral("Genesis hash")}, {r.environment.genesisHash}},
        {{QStringLiteral("Stored RPC URL")}, {r.environment.rpcUrl}},
        {{QStringLiteral("Database")}, {r.databasePath}},
        {{QStringLiteral("Exported by")}, {r.generator}},
        {{QStringLiteral("Times")}, {LocalTime::zoneName()}},
        {{QStringLiteral("Token units")},
         {r.tokens.isEmpty() ? QStringLiteral("base units (no decimals read)")
                             : QStringLiteral("decimals and symbols as %1 answered at export")
                                   .arg(r.tokensReadFrom)}},
    };
    f.table({{QStringLiteral("Field"), 1, true}, {QStringLiteral("Value"), 1, false, true}}, rows,
            8);
}

} // namespace forkscope::ui::pdfsections
