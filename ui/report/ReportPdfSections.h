#pragma once

// The PDF report's sections, each drawn into the page flow (PdfFlow.h). Only
// ReportPdfWriter.cpp includes it.
#include "PdfFlow.h"
#include "report/CheckpointReport.h"

#include <QImage>

namespace forkscope::ui::pdfsections {

// Page one: what a team lead reads in a minute. The verdict, whether the data is complete,
// and the environment at a glance in words and human units, with the cursor chart.
void summary(pdf::Flow& f, const report::CheckpointReport& r, const QImage& cursorChart);
// Node health from the app's own polls of this environment (live exports), or why there is
// none (the database keeps no per-node history).
void nodeHealth(pdf::Flow& f, const report::CheckpointReport& r, const QImage& chart);
// Each checkpoint with its export-time verification; the whole hash, which a reader
// compares with a node's.
void checkpoints(pdf::Flow& f, const report::CheckpointReport& r);
// The reorg chart (only when there is one to draw), the reorgs in words, and each one's
// first diff items in the token's units.
void reorgs(pdf::Flow& f, const report::CheckpointReport& r, const QImage& chart);
// The fork tree of the indexed range (the Fork tree tab's picture, fitted to the page), or
// why there is none to draw.
void forkTree(pdf::Flow& f, const report::CheckpointReport& r);
void outboxAndBackfill(pdf::Flow& f, const report::CheckpointReport& r, const QImage& chart);
// The identifiers a support request needs, last: genesis hash, stored RPC URL, database,
// exporter, time zone.
void technicalDetails(pdf::Flow& f, const report::CheckpointReport& r);

} // namespace forkscope::ui::pdfsections
