#include "forktree/ForkTreeView.h"
#include "ShortHex.h"
#include "forktree/ForkBlockRowsModel.h"
#include "forktree/ForkTreeCanvas.h"
#include "forktree/ForkTreeExport.h"
#include "forktree/ForkTreePainter.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <limits>

namespace forkscope::ui {

namespace {

constexpr quint64 kReaderFullSpan = 4096; // the reader sends every spine block up to this span

quint64 forkTreeSatSub(quint64 a, quint64 b)
{
    return a > b ? a - b : 0;
}

} // namespace

ForkTreeView::ForkTreeView(QWidget* parent) : QWidget(parent)
{
    qRegisterMetaType<forktree::ForkTreeRequest>();
    qRegisterMetaType<forktree::ForkTreeSnapshot>();
    qRegisterMetaType<forktree::ForkBlockRows>();
    qRegisterMetaType<chain::Hash32>();

    m_canvas = new ForkTreeCanvas(this);
    m_rows = new ForkBlockRowsModel(this);

    auto* bar = new QHBoxLayout;
    m_blockEdit = new QLineEdit(this);
    m_blockEdit->setObjectName(QStringLiteral("forkTreeJumpBlock"));
    m_blockEdit->setPlaceholderText(tr("Block number"));
    m_blockEdit->setMaximumWidth(140);
    auto* goBlock = new QPushButton(tr("Go to block"), this);
    m_reorgEdit = new QLineEdit(this);
    m_reorgEdit->setObjectName(QStringLiteral("forkTreeJumpReorg"));
    m_reorgEdit->setPlaceholderText(tr("Reorg #"));
    m_reorgEdit->setMaximumWidth(90);
    auto* goReorg = new QPushButton(tr("Go to reorg"), this);
    auto* zoomIn = new QToolButton(this);
    zoomIn->setText(QStringLiteral("+"));
    zoomIn->setToolTip(tr("Zoom in (+, or the wheel)"));
    auto* zoomOut = new QToolButton(this);
    zoomOut->setText(QStringLiteral("−"));
    zoomOut->setToolTip(tr("Zoom out (-, or the wheel)"));
    auto* png = new QPushButton(tr("Export PNG…"), this);
    auto* svg = new QPushButton(tr("Export SVG…"), this);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("forkTreeStatus"));
    for (QWidget* w : std::initializer_list<QWidget*>{m_blockEdit, goBlock, m_reorgEdit, goReorg,
                                                      zoomIn, zoomOut, png, svg})
        bar->addWidget(w);
    bar->addWidget(m_status, 1);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_canvas);
    split->addWidget(buildSidePanel());
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    m_settle.setSingleShot(true);
    m_settle.setInterval(kSettleMs);
    m_replyTimeout.setSingleShot(true);
    m_replyTimeout.setInterval(kReplyTimeoutMs);
    connect(&m_settle, &QTimer::timeout, this, [this] { askForVisible(); });
    m_refreshLater.setSingleShot(true);
    connect(&m_refreshLater, &QTimer::timeout, this, [this] { refreshSoon(); });
    connect(&m_replyTimeout, &QTimer::timeout, this, [this] {
        m_inFlight.reset();
        m_note = tr("the tree did not come back in time; pan to ask again");
        updateStatus();
    });
    connect(m_canvas, &ForkTreeCanvas::viewChanged, this, [this] {
        m_settle.start();
        updateStatus();
    });
    connect(m_canvas, &ForkTreeCanvas::boxClicked, this, &ForkTreeView::onBoxClicked);
    connect(goBlock, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const quint64 n = m_blockEdit->text().remove(QLatin1Char(',')).trimmed().toULongLong(&ok);
        if (ok)
            jumpToBlock(n);
        else
            m_note = tr("type a block number to go to");
        updateStatus();
    });
    connect(m_blockEdit, &QLineEdit::returnPressed, goBlock, &QPushButton::click);
    connect(goReorg, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const qint64 id = m_reorgEdit->text().remove(QLatin1Char('#')).trimmed().toLongLong(&ok);
        if (ok && id > 0)
            jumpToReorg(id);
        else
            m_note = tr("type a reorg number (as the reorg panel and the diff name it)");
        updateStatus();
    });
    connect(m_reorgEdit, &QLineEdit::returnPressed, goReorg, &QPushButton::click);
    connect(zoomIn, &QToolButton::clicked, m_canvas, [this] { m_canvas->zoomBy(1.25); });
    connect(zoomOut, &QToolButton::clicked, m_canvas, [this] { m_canvas->zoomBy(0.8); });
    connect(png, &QPushButton::clicked, this, [this] { exportAs(QStringLiteral("png")); });
    connect(svg, &QPushButton::clicked, this, [this] { exportAs(QStringLiteral("svg")); });
    updateStatus();
}

ForkTreeView::~ForkTreeView() = default;

QWidget* ForkTreeView::buildSidePanel()
{
    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    m_blockTitle = new QLabel(tr("Click a block to list its rows."), side);
    m_blockTitle->setObjectName(QStringLiteral("forkTreeBlockTitle"));
    m_blockTitle->setWordWrap(true);
    m_blockTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableView(side);
    m_table->setObjectName(QStringLiteral("forkTreeBlockRows"));
    m_table->setModel(m_rows);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    sideLayout->addWidget(m_blockTitle);
    sideLayout->addWidget(m_table, 1);
    return side;
}

const forktree::ForkTreeLayout& ForkTreeView::treeLayout() const
{
    return m_canvas->treeLayout();
}

void ForkTreeView::ask(const forktree::ForkTreeRequest& request)
{
    if (m_inFlight) { // one at a time: the latest wish waits for the reply
        m_queued = request;
        return;
    }
    m_inFlight = request;
    m_replyTimeout.start();
    updateStatus();
    emit windowWanted(request);
}

void ForkTreeView::askForVisible(bool again)
{
    if (!m_haveWindow && m_checkpoint == 0)
        return;
    const quint64 first = m_canvas->firstVisibleNumber();
    const quint64 last = std::max(first, m_canvas->lastVisibleNumber());
    const forktree::ForkTreeLayout& l = treeLayout();
    const quint64 loadedSpan = l.toBlock - l.fromBlock;
    const bool covered = m_haveWindow && l.fromBlock <= std::max(first, m_firstBlock) &&
                         l.toBlock >= std::min(last, m_checkpoint);
    // Zoomed in from a collapsed window: ask again for every block.
    const bool coarser = loadedSpan > kReaderFullSpan && 3 * (last - first) <= kReaderFullSpan;
    if (covered && !coarser && !again)
        return;
    // One screen either side, so a short pan needs no new read.
    const quint64 span = last - first + 1;
    forktree::ForkTreeRequest r;
    r.fromBlock = std::max(m_firstBlock, forkTreeSatSub(first, span));
    r.toBlock = std::max(r.fromBlock, std::min(last + span, m_checkpoint + span));
    ask(r);
}

void ForkTreeView::showCheckpoint(quint64 checkpoint)
{
    const bool first = m_checkpoint == 0 && !m_haveWindow;
    const bool moved = checkpoint != m_checkpoint;
    m_checkpoint = checkpoint; // a rollback moves it back: new branches to show
    if (first && checkpoint > 0) {
        m_canvas->centreOn(checkpoint, 0.8);
        m_lastRefresh.start();
        askForVisible();
    } else if (moved) {
        refreshSoon(); // the same blocks may have new branches since
    }
}

void ForkTreeView::showSightings(qint64 stored)
{
    if (stored == m_sightings)
        return;
    m_sightings = stored;
    if (m_haveWindow || m_inFlight)
        refreshSoon();
}

void ForkTreeView::refreshSoon()
{
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    m_stale = false;
    if (!m_lastRefresh.isValid() || m_lastRefresh.elapsed() >= kRefreshMs) {
        m_refreshLater.stop();
        m_lastRefresh.start();
        askForVisible(true);
    } else if (!m_refreshLater.isActive()) {
        m_refreshLater.start(int(kRefreshMs - m_lastRefresh.elapsed()));
    }
}

void ForkTreeView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refreshSoon();
}

void ForkTreeView::showTree(const forktree::ForkTreeSnapshot& tree)
{
    const forktree::ForkTreeWindow& window = tree.window;
    m_inFlight.reset();
    m_replyTimeout.stop();
    const quint64 anchor = m_canvas->centreNumber();
    m_checkpoint = std::max(m_checkpoint, window.checkpoint);
    m_firstBlock = window.firstBlock;
    m_canvas->setTreeLayout(tree.layout, anchor);
    m_haveWindow = true;
    m_note.clear();
    if (m_pendingReorg) {
        const qint64 id = *m_pendingReorg;
        m_pendingReorg.reset();
        if (!jumpToReorg(id))
            m_note = tr("reorg #%1 is not kept (past the retention, or never happened)").arg(id);
    }
    if (m_queued) {
        const forktree::ForkTreeRequest next = *m_queued;
        m_queued.reset();
        ask(next);
    } else {
        m_settle.start(); // the new window may still not cover a view that moved meanwhile
    }
    updateStatus();
}

void ForkTreeView::jumpToBlock(quint64 n)
{
    m_canvas->centreOn(n);
    m_settle.stop();
    askForVisible();
}

bool ForkTreeView::jumpToReorg(qint64 reorgId)
{
    const forktree::ForkTreeLayout& l = treeLayout();
    if (const auto b = l.findBranch(reorgId)) {
        const forktree::LayoutBranch& br = l.branches[*b];
        m_canvas->centreOn(br.forkPoint + quint64(br.depth + 1) / 2);
        m_canvas->ensureLaneVisible(br.lane);
        for (int i = l.columnFirstBox[br.forkColumn]; i < l.boxes.size(); ++i) {
            if (l.boxes[i].branch == *b) {
                m_canvas->setSelectedBox(i);
                break;
            }
        }
        m_note = tr("reorg #%1: %2 block(s) from %3")
                     .arg(reorgId)
                     .arg(br.depth)
                     .arg(ForkTreePainter::grouped(br.forkPoint + 1));
        updateStatus();
        return true;
    }
    if (m_pendingReorg ||
        (m_haveWindow && l.fromBlock <= m_firstBlock && l.toBlock >= m_checkpoint))
        return false; // the whole chain is read already (or being read): it is not kept
    // Not in this window: the tree of the whole chain (collapsed) holds every branch kept.
    m_pendingReorg = reorgId;
    m_settle.stop();
    ask({m_firstBlock, std::max(m_firstBlock, m_checkpoint)});
    return true;
}

void ForkTreeView::onBoxClicked(int box)
{
    const forktree::ForkTreeLayout& l = treeLayout();
    const forktree::LayoutBox& b = l.boxes[box];
    QStringList names;
    for (const int n : b.nodes)
        names.append(l.nodes[n].name);
    if (b.kind == forktree::BoxKind::Stub || b.kind == forktree::BoxKind::Ahead) {
        // Nothing was indexed there: no rows to ask for.
        m_wantedBlock.reset();
        m_rows->clear();
        m_blockTitle->setText(
            b.kind == forktree::BoxKind::Stub
                ? tr("Block %1 %2: the head %3 reported, on no branch the indexer saw. That "
                     "node's own view, not a reorg.")
                      .arg(ForkTreePainter::grouped(b.number), shortHex(b.hash.toHex()),
                           names.join(tr(", ")))
                : tr("Block %1 %2: the head %3 reported, past the checkpoint (not indexed yet).")
                      .arg(ForkTreePainter::grouped(b.number), shortHex(b.hash.toHex()),
                           names.join(tr(", "))));
        return;
    }
    m_wantedBlock = b.hash;
    m_rows->clear();
    m_blockTitle->setText(tr("Block %1 %2: reading its rows…")
                              .arg(ForkTreePainter::grouped(b.number), shortHex(b.hash.toHex())));
    emit blockWanted(b.hash);
}

void ForkTreeView::showBlock(const forktree::ForkBlockRows& rows)
{
    if (!m_wantedBlock || rows.hash != *m_wantedBlock)
        return; // an answer to an earlier click
    m_rows->setBlock(rows);
    QString title =
        rows.orphaned ? tr("Block %1 %2, removed by reorg #%3: %4 row(s) removed with it")
                            .arg(ForkTreePainter::grouped(rows.number), shortHex(rows.hash.toHex()))
                            .arg(rows.reorgId)
                            .arg(rows.rows.size())
                      : tr("Block %1 %2, canonical: %3 row(s) stored")
                            .arg(ForkTreePainter::grouped(rows.number), shortHex(rows.hash.toHex()))
                            .arg(rows.rows.size());
    if (rows.truncated)
        title += tr(" (the first %1 only)").arg(rows.rows.size());
    m_blockTitle->setText(title);
}

void ForkTreeView::updateStatus()
{
    const forktree::ForkTreeLayout& l = treeLayout();
    QStringList parts;
    if (m_haveWindow) {
        parts.append(
            tr("%1 reorg(s) kept")
                .arg(ForkTreePainter::grouped(quint64(std::max<qint64>(0, l.reorgCount)))));
        parts.append(tr("blocks %1 to %2 in view")
                         .arg(ForkTreePainter::grouped(m_canvas->firstVisibleNumber()),
                              ForkTreePainter::grouped(m_canvas->lastVisibleNumber())));
    } else if (!m_inFlight) {
        parts.append(tr("waiting for the indexer's first checkpoint"));
    }
    if (m_inFlight)
        parts.append(tr("reading…"));
    if (!m_note.isEmpty())
        parts.append(m_note);
    m_status->setText(parts.join(QStringLiteral(" · ")));
}

bool ForkTreeView::exportPng(const QString& path, QString* error) const
{
    return exportForkTreePng(path, m_canvas->size(), treeLayout(), m_canvas->viewport(), error);
}

bool ForkTreeView::exportSvg(const QString& path, QString* error) const
{
    return exportForkTreeSvg(path, m_canvas->size(), treeLayout(), m_canvas->viewport(), error);
}

void ForkTreeView::exportAs(const QString& format)
{
    const bool isSvg = format == QLatin1String("svg");
    const QString path = QFileDialog::getSaveFileName(
        this, isSvg ? tr("Export the fork tree as SVG") : tr("Export the fork tree as PNG"),
        QStringLiteral("forktree.") + format,
        isSvg ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!(isSvg ? exportSvg(path, &error) : exportPng(path, &error)))
        QMessageBox::warning(this, tr("Export failed"), error);
}

} // namespace forkscope::ui
