#include "ReportPdfWriter.h"
#include "Palette.h"
#include "PdfFlow.h"
#include "ReportCharts.h"
#include "report/ReportError.h"
#include "widgets/LocalTime.h"

#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextOption>

namespace forkscope::ui {

using namespace forkscope::report;

namespace {
constexpr int kDiffItemsInPdf = 10; // per reorg; the JSON export carries up to 200
using namespace pdf;

QString orDash(const QString& s)
{
    return s.isEmpty() ? QStringLiteral("–") : s;
}

QString verdictText(const InvariantVerdict& v)
{
    switch (v.state) {
    case InvariantState::Hold:
        return QStringLiteral("Invariants hold: ") + v.summary;
    case InvariantState::Violated:
        return QStringLiteral("Invariants VIOLATED: ") + v.summary;
    case InvariantState::NotChecked:
        break;
    }
    QString s = v.summary;
    if (s.startsWith(QLatin1String("not checked: ")))
        s = s.mid(13);
    return QStringLiteral("Invariants not checked: ") + s;
}

void titlePage(Flow& f, const CheckpointReport& r)
{
    const EnvironmentInfo& env = r.environment;
    f.text(QStringLiteral("Forkscope checkpoint report"), sans(22, true));
    f.space(pt(4));
    f.text(QStringLiteral("Environment %1").arg(env.id), sans(14, true));
    f.text(env.archived() ? QStringLiteral("archived at %1 (read-only history)")
                                .arg(LocalTime::format(env.archivedAt))
                          : QStringLiteral("live"),
           sans(10), env.archived() ? kGrey : kGreen);
    f.space(pt(10));
    f.verdict(verdictText(r.invariants), Palette::reportVerdict(r.invariants.state));
    // Never green over a gap: an open completeness alert is said on the title page.
    for (const auto& alert : r.completeness.openAlerts) {
        f.space(pt(4));
        f.verdict(QStringLiteral("DATA INCOMPLETE: ") + alert.summary(), Palette::dataIncomplete());
    }
    f.space(pt(8));

    QList<QList<Cell>> rows{
        {{QStringLiteral("Chain id")}, {QString::number(env.chainId)}},
        {{QStringLiteral("Genesis hash")}, {env.genesisHash}},
        {{QStringLiteral("Stored RPC URL")}, {env.rpcUrl}},
        {{QStringLiteral("Created at")}, {LocalTime::format(env.createdAt)}},
        {{QStringLiteral("Exported at")}, {LocalTime::format(r.generatedAt)}},
        {{QStringLiteral("Times")}, {LocalTime::zoneName()}},
        {{QStringLiteral("Exported by")}, {r.generator}},
        {{QStringLiteral("Database")}, {r.databasePath}},
    };
    if (!r.appState.isEmpty())
        rows.append({{QStringLiteral("App state at export")}, {r.appState}});
    f.table({{QStringLiteral("Field"), 1, true}, {QStringLiteral("Value"), 1, false, true}}, rows,
            9);

    f.text(QStringLiteral("Checkpoints at export"), sans(11, true));
    if (r.checkpoints.isEmpty())
        f.text(QStringLiteral("No checkpoint: nothing has been indexed in this environment."),
               sans(9), kGrey);
    for (const CheckpointEntry& c : r.checkpoints) {
        f.text(QStringLiteral("Source %1: block %2").arg(c.sourceId).arg(c.blockNumber), sans(9));
        f.text(c.blockHash, mono(9), Qt::black, pt(12));
        f.text(QStringLiteral("%1 (%2)").arg(
                   statusName(c.verification.status),
                   c.verification.checkedAt.isEmpty()
                       ? QStringLiteral("no node given")
                       : QStringLiteral("checked %1")
                             .arg(LocalTime::format(c.verification.checkedAt))),
               sans(9, true), Palette::verification(c.verification.status), pt(12));
    }
    f.space(pt(6));
    f.text(QStringLiteral("Counts"), sans(11, true));
    const Counts& n = r.counts;
    f.table({{QStringLiteral("blocks"), 1},
             {QStringLiteral("logs"), 1},
             {QStringLiteral("transfers"), 1},
             {QStringLiteral("balances"), 1},
             {QStringLiteral("holders"), 1},
             {QStringLiteral("reorgs"), 1},
             {QStringLiteral("outbox pending"), 1.3},
             {QStringLiteral("delivered"), 1},
             {QStringLiteral("failed"), 1}},
            {{{QString::number(n.blocks)},
              {QString::number(n.logs)},
              {QString::number(n.transfers)},
              {QString::number(n.balances)},
              {QString::number(n.holders)},
              {QString::number(n.reorgs)},
              {QString::number(n.outboxPending)},
              {QString::number(n.outboxDelivered)},
              {QString::number(n.outboxFailed)}}},
            9);
}

void nodeSection(Flow& f, const CheckpointReport& r, const QImage& liveChart)
{
    f.heading(QStringLiteral("Node health at export"));
    f.text(QStringLiteral("Per-node history is not stored in the database, so this page shows the "
                          "node as Forkscope saw it when the report was made%1.")
               .arg(liveChart.isNull() ? QString()
                                       : QStringLiteral(", under the app's live node panel")),
           sans(9), kGrey);
    if (!liveChart.isNull())
        f.image(liveChart, pt(220));
    const NodeSummary& n = r.node;
    QList<QList<Cell>> rows;
    if (!n.checked) {
        rows.append(
            {{QStringLiteral("Node")}, {QStringLiteral("none given: nothing was verified")}});
    } else {
        rows.append({{QStringLiteral("URL checked")}, {n.url}});
        rows.append({{QStringLiteral("Checked at")}, {orDash(LocalTime::format(n.checkedAt))}});
        rows.append({{QStringLiteral("State")},
                     {n.reachable ? QStringLiteral("reachable") : QStringLiteral("unreachable"),
                      n.reachable ? kGreen : kRed}});
        if (n.reachable) {
            rows.append({{QStringLiteral("Chain id")}, {QString::number(n.chainId.value_or(0))}});
            rows.append({{QStringLiteral("Head")}, {QString::number(n.head.value_or(0))}});
            rows.append({{QStringLiteral("Genesis hash")}, {n.genesisHash}});
            rows.append({{QStringLiteral("Same chain as the environment")},
                         {n.sameChain ? QStringLiteral("yes")
                                      : QStringLiteral("no: the chain was reset or the URL "
                                                       "points elsewhere"),
                          n.sameChain ? kGreen : kRed}});
        } else {
            rows.append({{QStringLiteral("Error")}, {n.error}});
        }
    }
    f.table({{QStringLiteral("Field"), 1, true}, {QStringLiteral("Value"), 1, false, true}}, rows,
            8);
}

void checkpointSection(Flow& f, const CheckpointReport& r)
{
    f.heading(QStringLiteral("Checkpoints and their verification"));
    if (r.checkpoints.isEmpty()) {
        f.text(QStringLiteral("No checkpoint in this environment."), sans(9), kGrey);
        return;
    }
    QList<QList<Cell>> main;
    QList<QList<Cell>> details;
    for (const CheckpointEntry& c : r.checkpoints) {
        const Verification& v = c.verification;
        main.append({{c.sourceId},
                     {QString::number(c.blockNumber)},
                     {c.blockHash},
                     {statusName(v.status), Palette::verification(v.status)}});
        // The node's hash right under the stored one, whole, so the two can be compared.
        if (v.status == VerificationStatus::Reorged)
            main.append({{}, {}, {v.nodeHash, kRed}, {QStringLiteral("node's hash"), kRed}});
        QString found;
        switch (v.status) {
        case VerificationStatus::Canonical:
            found = QStringLiteral("node has the same hash");
            break;
        case VerificationStatus::Reorged:
            found = QStringLiteral("node has another hash (in red above)");
            break;
        case VerificationStatus::Missing:
            found = QStringLiteral("node has no block at that height");
            break;
        case VerificationStatus::Unreachable:
            found = v.error;
            break;
        case VerificationStatus::NotChecked:
            found = QStringLiteral("no node given");
            break;
        }
        details.append(
            {{c.sourceId},
             {c.policyVersion},
             {QString::number(c.generation)},
             {c.startBlock ? QString::number(*c.startBlock) : QStringLiteral("–")},
             {LocalTime::format(c.updatedAt)},
             {orDash(LocalTime::format(c.verifiedAt))},
             {orDash(LocalTime::format(v.checkedAt)) + QStringLiteral(": ") + orDash(v.method)},
             {found, Palette::verification(v.status)}});
    }
    f.table({{QStringLiteral("Source"), 1},
             {QStringLiteral("Block"), 1, true},
             {QStringLiteral("Block hash"), 1, true, true},
             {QStringLiteral("Status"), 1}},
            main, 8);
    f.table({{QStringLiteral("Source"), 1},
             {QStringLiteral("Policy"), 1.6},
             {QStringLiteral("Gen."), 0.5},
             {QStringLiteral("Start"), 0.6},
             {QStringLiteral("Updated"), 1.4},
             {QStringLiteral("Verified by indexer"), 1.4},
             {QStringLiteral("Checked at export (when: how)"), 2.2},
             {QStringLiteral("Found"), 2.2}},
            details, 7);
}

QString diffDetail(const ReorgDiffItem& d)
{
    if (d.kind == QLatin1String("transfer_removed")) {
        QString s = QStringLiteral("%1 → %2: %3").arg(d.fromAddr, d.toAddr, d.value);
        if (!d.contract.isEmpty())
            s += QStringLiteral(" in ") + d.contract;
        if (!d.txHash.isEmpty())
            s += QStringLiteral(", tx ") + d.txHash;
        return s;
    }
    if (d.kind == QLatin1String("balance_changed"))
        return QStringLiteral("%1 in %2: %3 → %4")
            .arg(d.holder, d.contract, orDash(d.beforeValue), orDash(d.afterValue));
    return orDash(d.eventKey);
}

void reorgSection(Flow& f, const CheckpointReport& r, const QImage& chart)
{
    f.heading(QStringLiteral("Reorg history"));
    f.image(chart, pt(230));
    if (r.reorgs.isEmpty()) {
        f.text(QStringLiteral("No reorg was recorded in this environment."), sans(9), kGrey);
        return;
    }
    QList<QList<Cell>> rows;
    for (const ReorgEntry& e : r.reorgs) {
        QStringList counts;
        for (auto it = e.diffCounts.cbegin(); it != e.diffCounts.cend(); ++it)
            counts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
        rows.append(
            {{QString::number(e.id)},
             {LocalTime::format(e.detectedAt)},
             {e.reason},
             {QStringLiteral("%1 → %2").arg(e.oldBlockNumber).arg(e.forkBlockNumber)},
             {QString::number(e.depth)},
             {QString::number(e.rowsRemoved)},
             {counts.isEmpty() ? QStringLiteral("none") : counts.join(QStringLiteral(", "))}});
    }
    f.table({{QStringLiteral("#"), 1, true},
             {QStringLiteral("Detected"), 1.9},
             {QStringLiteral("Reason"), 1},
             {QStringLiteral("Checkpoint → fork"), 1},
             {QStringLiteral("Depth"), 1, true},
             {QStringLiteral("Rows removed"), 0.8},
             {QStringLiteral("What the rollback undid"), 2.5}},
            rows);

    for (const ReorgEntry& e : r.reorgs) {
        if (e.diffItems.isEmpty())
            continue;
        const qsizetype shown = std::min<qsizetype>(kDiffItemsInPdf, e.diffItems.size());
        f.text(QStringLiteral("Reorg #%1 (%2, depth %3): first %4 of %5 diff items")
                   .arg(e.id)
                   .arg(e.reason)
                   .arg(e.depth)
                   .arg(shown)
                   .arg(e.diffItemsTotal),
               sans(8, true));
        f.text(QStringLiteral("old checkpoint %1 %2\nfork block     %3 %4")
                   .arg(e.oldBlockNumber)
                   .arg(orDash(e.oldBlockHash))
                   .arg(e.forkBlockNumber)
                   .arg(orDash(e.forkBlockHash)),
               mono(7));
        QList<QList<Cell>> items;
        for (qsizetype i = 0; i < shown; ++i) {
            const ReorgDiffItem& d = e.diffItems[i];
            items.append({{d.kind},
                          {d.blockNumber ? QString::number(*d.blockNumber) : QStringLiteral("–")},
                          {diffDetail(d)}});
        }
        f.table({{QStringLiteral("Kind"), 1, true},
                 {QStringLiteral("Block"), 1, true},
                 {QStringLiteral("Detail"), 1, false, true}},
                items, 6.5);
    }
}

void outboxAndBackfill(Flow& f, const CheckpointReport& r, const QImage& chart)
{
    f.heading(QStringLiteral("Outbox"));
    f.text(QStringLiteral("%1 pending, %2 delivered, %3 refused for good (failed).")
               .arg(r.counts.outboxPending)
               .arg(r.counts.outboxDelivered)
               .arg(r.counts.outboxFailed),
           sans(9));
    f.image(chart, pt(230));

    f.heading(QStringLiteral("Backfill ranges"));
    if (r.counts.backfill.isEmpty()) {
        f.text(QStringLiteral("No backfill range was recorded."), sans(9), kGrey);
        return;
    }
    QList<QList<Cell>> rows;
    for (const BackfillStatusCount& b : r.counts.backfill)
        rows.append({{b.status, b.status == QLatin1String("failed") ? kRed : QColor(Qt::black)},
                     {QString::number(b.ranges)},
                     {QString::number(b.blocks)},
                     {QString::number(b.attempts)},
                     {b.lastErrors.isEmpty() ? QStringLiteral("–")
                                             : b.lastErrors.join(QStringLiteral("\n"))}});
    f.table({{QStringLiteral("Status"), 1, true},
             {QStringLiteral("Ranges"), 1, true},
             {QStringLiteral("Blocks"), 1, true},
             {QStringLiteral("Attempts"), 1, true},
             {QStringLiteral("Last errors"), 1}},
            rows);
}

} // namespace

void ReportPdfWriter::write(const CheckpointReport& report, const QString& path,
                            const QList<QImage>& liveCharts)
{
    // The cursor, reorg and outbox charts always come from the database's whole history:
    // the live panels show the last five minutes, and a reorg listed in the report's table
    // was missing from its chart. Only node health, which the database does not keep, is
    // taken from the live panel when there is one.
    const bool live = liveCharts.size() == 4;
    const QList<QImage> charts = ReportCharts::render(report);

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw ReportError(QStringLiteral("cannot write %1: %2; check that the directory exists "
                                         "and is writable")
                              .arg(path, file.errorString()));
    {
        QPdfWriter writer(&file);
        writer.setResolution(kDpi);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(15, 15, 15, 12), QPageLayout::Millimeter);
        writer.setTitle(
            QStringLiteral("Forkscope checkpoint report: %1").arg(report.environment.id));
        writer.setCreator(report.generator);
        QPainter painter;
        if (!painter.begin(&writer))
            throw ReportError(QStringLiteral("cannot start a PDF at %1").arg(path));
        Flow flow(writer, painter,
                  QStringLiteral("Forkscope checkpoint report · %1 · exported %2")
                      .arg(report.environment.id, LocalTime::format(report.generatedAt)));
        titlePage(flow, report);

        flow.newPage();
        flow.heading(QStringLiteral("Cursor"));
        flow.image(charts.value(ReportCharts::Cursor), pt(260));
        flow.text(QStringLiteral("%1 indexed blocks%2.")
                      .arg(report.series.blocksTotal)
                      .arg(report.series.blocksTotal > report.series.blocks.size()
                               ? QStringLiteral(", drawn from %1 evenly spaced points")
                                     .arg(report.series.blocks.size())
                               : QString()),
                  sans(8), kGrey);
        nodeSection(flow, report, live ? liveCharts.value(3) : QImage());

        flow.newPage();
        checkpointSection(flow, report);
        reorgSection(flow, report, charts.value(ReportCharts::Reorgs));
        outboxAndBackfill(flow, report, charts.value(ReportCharts::Outbox));
        flow.finish();
        if (!painter.end())
            throw ReportError(QStringLiteral("could not finish the PDF at %1").arg(path));
    }
    if (!file.commit())
        throw ReportError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
}

} // namespace forkscope::ui
