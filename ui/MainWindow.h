#pragma once

#include "config/AppSettings.h"
#include "engine/EngineStatus.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace forkscope::ui {

class PlotPanel;
class ReorgDiffDialog;

// The Forkscope main window. It shows what the engine reports, by snapshot, and nothing
// it did not receive: every label traces back to an EngineStatus.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Text shown in the status bar's node and chain fields (also read by tests).
    QString nodeText() const;
    QString chainText() const;
    QString checkpointText() const { return m_checkpointText; }
    QList<PlotPanel*> panels() const { return m_panels; }
    QTableWidget* nodeTable() const { return m_nodeTable; }
    QString checkpointField(const QString& name) const;
    QAction* pauseAction() const { return m_pauseAction; }
    // The reorg id behind bar `index` of reason set `bars` (what a click opens).
    qint64 reorgIdAt(int bars, int index) const { return m_reorgIds.value(bars).value(index, -1); }
    ReorgDiffDialog* lastDiffDialog() const;

public slots:
    void applyStatus(const forkscope::engine::EngineStatus& status);
    void appendLog(const QString& level, const QString& text);
    void showReorgDiff(const forkscope::engine::ReorgDiff& diff);

signals:
    void closing();
    // The user accepted new settings (already saved with QSettings).
    void settingsChanged(const forkscope::config::AppSettings& settings);
    void indexingPauseRequested(bool paused);
    void engineRestartRequested();
    void engineStopRequested();
    void reorgDiffRequested(qint64 reorgId);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    QList<PlotPanel*> m_panels;
    QLabel* m_connectionLabel;
    QLabel* m_nodeLabel;
    QLabel* m_chainLabel;
    QLabel* m_headLabel;
    QLabel* m_dbLabel;
    QPlainTextEdit* m_log;
    QTableWidget* m_nodeTable;
    QHash<QString, class QLabel*> m_checkpointFields;
    QHash<QString, int> m_nodeSeries; // node URL -> series in the node health panel
    void applyHealth(const forkscope::health::HealthSnapshot& h, double timeSecs);
    QString m_checkpointText;
    QAction* m_pauseAction = nullptr;
    QList<QList<qint64>> m_reorgIds{{}, {}, {}};
    QPointer<ReorgDiffDialog> m_diffDialog;
};

} // namespace forkscope::ui
