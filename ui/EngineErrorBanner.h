#pragma once

#include "engine/DisplayState.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace forkscope::ui {

// The band across the top of the window when the engine cannot do its work: it failed (a
// database it cannot open, an indexer that stopped for good, no contracts to index), its
// node does not answer, or the user stopped the managed devnet. It says why, every other
// problem true at the same time, and offers what can change that: Choose database...,
// Settings..., Retry (which says when it last tried), or Start devnet for a devnet stopped
// on purpose (an outage chosen by the user is not an error, so not red).
class EngineErrorBanner : public QFrame
{
    Q_OBJECT
public:
    explicit EngineErrorBanner(QWidget* parent = nullptr);

    // Shown for Failed, NodeUnreachable and DevnetStopped, hidden otherwise.
    void apply(const engine::EngineStatus& status);
    QString text() const; // empty while hidden
    QPushButton* button(const QString& name) const;

signals:
    void chooseDatabaseRequested();
    void settingsRequested();
    void retryRequested();
    void startDevnetRequested();

private:
    void setTone(engine::DisplayState::Tone tone);

    QLabel* m_text;
    QPushButton* m_chooseDatabase;
    QPushButton* m_settings;
    QPushButton* m_retry;
    QPushButton* m_startDevnet;
};

} // namespace forkscope::ui
