#pragma once

#include "engine/DisplayState.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace forkscope::ui {

// The band across the top of the window when the engine cannot do its work: it failed (a
// database it cannot open, an indexer that stopped for good, no contracts to index) or its
// node does not answer. It says why and offers what can change that: Choose database...,
// Settings..., Retry. Before it, a directory given as the database looked exactly like a
// slow start ("Waiting for the indexer: no data yet" in every panel).
class EngineErrorBanner : public QFrame
{
    Q_OBJECT
public:
    explicit EngineErrorBanner(QWidget* parent = nullptr);

    // Shown for Failed and NodeUnreachable, hidden otherwise.
    void setState(const engine::DisplayState& state);
    QString text() const; // empty while hidden
    QPushButton* button(const QString& name) const;

signals:
    void chooseDatabaseRequested();
    void settingsRequested();
    void retryRequested();

private:
    QLabel* m_text;
    QPushButton* m_chooseDatabase;
    QPushButton* m_settings;
    QPushButton* m_retry;
};

} // namespace forkscope::ui
