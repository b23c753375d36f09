#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// Shown while a reorg deeper than --max-reorg-depth holds the indexer stopped: what
// happened (the checkpoint it stopped at, the limit), that nothing was deleted, and the two
// ways on. Nothing happens until the user chooses one: raise the limit and continue (the
// rollback then goes as deep as the fork), or reset the lab environment.
class DeepReorgBanner : public QFrame
{
    Q_OBJECT
public:
    explicit DeepReorgBanner(engine::EngineApi* host, QWidget* parent = nullptr);

    QString text() const;
    QPushButton* raiseButton() const { return m_raise; }
    QPushButton* resetButton() const { return m_reset; }
    // The limit "raise" asks for: twice the one that stopped the indexer.
    quint64 proposedLimit() const { return m_proposed; }

private:
    void apply(const engine::EngineStatus& s);

    engine::EngineApi* m_host;
    QString m_environment;
    QLabel* m_text;
    QPushButton* m_raise;
    QPushButton* m_reset;
    quint64 m_proposed = 0;
};

} // namespace forkscope::ui
