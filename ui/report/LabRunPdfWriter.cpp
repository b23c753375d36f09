#include "LabRunPdfWriter.h"

#include "PdfDocument.h"
#include "report/ReportError.h"
#include "widgets/LocalTime.h"

namespace forkscope::ui {

using foreign::ForeignFinding;
using report::ReportError;

namespace {

constexpr int kFindingsShown = 60;

constexpr ForeignFinding::Kind kKinds[] = {
    ForeignFinding::Kind::Missing, ForeignFinding::Kind::Extra,    ForeignFinding::Kind::Duplicated,
    ForeignFinding::Kind::Altered, ForeignFinding::Kind::Orphaned,
};

QList<QList<pdf::Cell>> auditRows(const lab::LabRunResult& run)
{
    QList<QList<pdf::Cell>> rows;
    for (const lab::LabRunAudit& a : run.audits) {
        QList<pdf::Cell> row{{QString::number(a.step)},
                             {a.stepDescription},
                             {QString::number(a.head)},
                             {a.caughtUp ? QStringLiteral("yes")
                              : a.heldBack
                                  ? QStringLiteral("held back by the node (%1 ms)").arg(a.waitedMs)
                                  : QStringLiteral("no (%1 ms)").arg(a.waitedMs),
                              a.caughtUp || a.heldBack ? Qt::black : pdf::kRed}};
        for (ForeignFinding::Kind k : kKinds)
            row << pdf::Cell{a.result ? QString::number(a.result->count(k)) : QStringLiteral("-")};
        row << (a.clean()
                    ? pdf::Cell{QStringLiteral("clean"), pdf::kGreen}
                    : pdf::Cell{a.error.isEmpty() ? QStringLiteral("found something") : a.error,
                                pdf::kRed});
        rows << row;
    }
    return rows;
}

void findings(pdf::Flow& flow, const lab::LabRunResult& run)
{
    QList<QList<pdf::Cell>> rows;
    qint64 total = 0;
    for (const lab::LabRunAudit& a : run.audits) {
        if (!a.result)
            continue;
        total += a.result->findingCount();
        for (const ForeignFinding& f : a.result->findings)
            if (rows.size() < kFindingsShown)
                rows << QList<pdf::Cell>{{QString::number(a.step)}, {f.describe()}};
    }
    if (rows.isEmpty())
        return;
    flow.heading(QStringLiteral("Findings"));
    if (total > rows.size())
        flow.text(QStringLiteral("The first %1 of %2 findings (the JSON output has up to 1,000 "
                                 "per audit).")
                      .arg(rows.size())
                      .arg(total),
                  pdf::sans(8), pdf::kGrey);
    flow.table({{QStringLiteral("after step"), 1, true}, {QStringLiteral("finding"), 1}}, rows,
               6.5);
}

} // namespace

void LabRunPdfWriter::write(const lab::LabRunResult& run, const QString& path)
{
    const QString started =
        run.timeline.isEmpty()
            ? QString()
            : LocalTime::format(run.timeline.first().at.toString(Qt::ISODateWithMs));
    pdf::writeDocument(
        path,
        {QStringLiteral("Forkscope lab run: %1").arg(run.scenario), QString(),
         QStringLiteral("Forkscope lab run · %1, seed %2 · %3")
             .arg(run.scenario)
             .arg(run.seed)
             .arg(started)},
        [&](pdf::Flow& flow) {
            flow.heading(QStringLiteral("Lab run: %1, seed %2").arg(run.scenario).arg(run.seed));
            flow.verdict(run.verdictLine(), run.passed() ? pdf::kGreen : pdf::kRed);
            flow.table({{QStringLiteral("what"), 1, true}, {QStringLiteral("value"), 1}},
                       {{{QStringLiteral("indexer")}, {run.indexerCommand}},
                        {{QStringLiteral("its node")}, {run.node}},
                        {{QStringLiteral("its database")}, {run.database}},
                        {{QStringLiteral("audit query")}, {run.query}}});
            flow.heading(QStringLiteral("Audits"));
            QList<pdf::Column> columns{{QStringLiteral("step"), 1, true},
                                       {QStringLiteral("since the audit before"), 3},
                                       {QStringLiteral("head"), 1, true},
                                       {QStringLiteral("caught up"), 1, true}};
            for (ForeignFinding::Kind k : kKinds)
                columns << pdf::Column{foreign::kindName(k), 1, true};
            columns << pdf::Column{QStringLiteral("result"), 1.5};
            flow.table(columns, auditRows(run));
            findings(flow, run);
            flow.heading(QStringLiteral("Timeline"));
            QList<QList<pdf::Cell>> timeline;
            for (const lab::LabRunEvent& e : run.timeline)
                timeline << QList<pdf::Cell>{{LocalTime::format(e.at.toString(Qt::ISODateWithMs))},
                                             {e.what}};
            flow.table({{QStringLiteral("at"), 1, true}, {QStringLiteral("what"), 1}}, timeline,
                       6.5);
        });
}

} // namespace forkscope::ui
