#pragma once

#include "chain/Hash32.h"
#include "forktree/ForkBlockRows.h"
#include "forktree/ForkTreeLayout.h"
#include "forktree/ForkTreeSnapshot.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>
#include <optional>

class QLabel;
class QLineEdit;
class QTableView;

namespace forkscope::ui {

class ForkBlockRowsModel;
class ForkTreeCanvas;

// The Fork tree tab: the canonical chain as a spine, every orphaned branch off it, each node's
// heads, a side table with the clicked block's rows. It reads nothing itself: it asks for a
// window of blocks (windowWanted) as the view pans and zooms, at most one request at a time
// and only once the view has settled, and draws what showTree() brings, laid out already; a click
// on a block asks for its rows (blockWanted) and showBlock() lists them.
class ForkTreeView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSettleMs = 150;         // a pan or zoom asks once it has paused
    static constexpr int kReplyTimeoutMs = 15000; // a window that never comes stops blocking
    static constexpr int kRefreshMs = 2000;       // the chain moving asks again at most this often

    explicit ForkTreeView(QWidget* parent = nullptr);
    ~ForkTreeView() override;

    ForkTreeCanvas* canvas() const { return m_canvas; }
    ForkBlockRowsModel* blockRows() const { return m_rows; }
    const forktree::ForkTreeLayout& treeLayout() const;
    // The request sent and not answered yet, if any.
    std::optional<forktree::ForkTreeRequest> requestInFlight() const { return m_inFlight; }

    // Centres block n (asking for its window when it is not read yet).
    void jumpToBlock(quint64 n);
    // Centres rollback `reorgId`'s branch and selects its first block; when it is not in the
    // window, asks for the whole chain's tree (collapsed) to find it. False: not kept.
    bool jumpToReorg(qint64 reorgId);

    bool exportPng(const QString& path, QString* error = nullptr) const;
    bool exportSvg(const QString& path, QString* error = nullptr) const;

public slots:
    // Where the spine ends now; the first call asks for the tree at the head.
    void showCheckpoint(quint64 checkpoint);
    // How many node heads the engine has stored: a change moves the nodes' marks.
    void showSightings(qint64 stored);
    void showTree(const forktree::ForkTreeSnapshot& tree);
    void showBlock(const forktree::ForkBlockRows& rows);

signals:
    void windowWanted(forktree::ForkTreeRequest request);
    void blockWanted(chain::Hash32 hash);

private:
    QWidget* buildSidePanel();
    void ask(const forktree::ForkTreeRequest& request);
    // `again`: ask even when the loaded window covers the screen (the chain moved).
    void askForVisible(bool again = false);
    // The chain or a node's head moved: the tree on screen is read again, at most every
    // kRefreshMs and always after the last move (a hidden tab once it is shown).
    void refreshSoon();
    void showEvent(QShowEvent* event) override;
    void onBoxClicked(int box);
    void updateStatus();
    void exportAs(const QString& format);

    ForkTreeCanvas* m_canvas = nullptr;
    ForkBlockRowsModel* m_rows = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_blockTitle = nullptr;
    QLabel* m_status = nullptr;
    QLineEdit* m_blockEdit = nullptr;
    QLineEdit* m_reorgEdit = nullptr;
    QTimer m_settle;
    QTimer m_replyTimeout;
    std::optional<forktree::ForkTreeRequest> m_inFlight;
    std::optional<forktree::ForkTreeRequest> m_queued;
    std::optional<qint64> m_pendingReorg;
    std::optional<chain::Hash32> m_wantedBlock;
    quint64 m_checkpoint = 0;
    QElapsedTimer m_lastRefresh; // the view on screen asks again as the chain moves, not faster
    QTimer m_refreshLater;       // the move that came too soon after the last read
    bool m_stale = false;        // moved while hidden
    qint64 m_sightings = 0;
    quint64 m_firstBlock = 0;
    bool m_haveWindow = false;
    QString m_note;
};

} // namespace forkscope::ui
