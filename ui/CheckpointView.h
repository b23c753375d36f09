#pragma once

#include <QHash>
#include <QWidget>

class QLabel;

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// The Checkpoint dock: the claim the indexer stands behind, as stored (environment, chain,
// number, hash, policy, generation, when the hash was last re-verified). Fed by the host's
// snapshots; it keeps the last environment's claim while none is indexing.
class CheckpointView : public QWidget
{
    Q_OBJECT
public:
    explicit CheckpointView(engine::EngineApi* host, QWidget* parent = nullptr);

    // A field's text by key: environment, chain, source, number, hash, policy, generation,
    // verified ("" for an unknown key).
    QString field(const QString& key) const;

private:
    void apply(const engine::EngineStatus& s);
    void set(const QString& key, const QString& text);

    QHash<QString, QLabel*> m_fields;
};

} // namespace forkscope::ui
