#include "MainWindow.h"
#include "contracts/AddSourceDialog.h"
#include "engine/EngineApi.h"

// The window's "Add contract..." and "Add factory..." (the Contracts tab's buttons).
namespace forkscope::ui {

using engine::EngineApi;

void MainWindow::addSource(engine::SourceSpec::Kind kind)
{
    auto* dialog = new AddSourceDialog(
        kind, [this](const QString& address) { return m_host->requestCodeCheck(address); }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_host, &EngineApi::codeChecked, dialog, &AddSourceDialog::applyCodeCheck);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const engine::SourceSpec spec = dialog->spec();
        // The engine backfills it (a factory with its children) next to the head; the
        // Contracts tab shows its progress and the log says when it joins.
        if (spec.kind == engine::SourceSpec::Kind::Contract)
            m_host->addSource(spec.normalizedAddress(), std::nullopt);
        else
            m_host->addFactory(spec, std::nullopt);
    });
    dialog->open();
}

} // namespace forkscope::ui
