#include "MainWindow.h"
#include "contracts/AddSourceDialog.h"
#include "engine/EngineApi.h"

#include <QMessageBox>
#include <QRegularExpression>

// The window's "Add contract..." and "Add factory..." (the Contracts tab's buttons).
namespace forkscope::ui {

using engine::EngineApi;

namespace {

// The flags as a shell reads them back: a signature's spaces and parentheses quoted.
QString shellWords(const QStringList& words)
{
    static const QRegularExpression kPlain(QStringLiteral("^[A-Za-z0-9_.:/=-]+$"));
    QStringList out;
    for (const QString& w : words)
        out << (kPlain.match(w).hasMatch() ? w : QLatin1Char('\'') + w + QLatin1Char('\''));
    return out.join(QLatin1Char(' '));
}

} // namespace

void MainWindow::addSource(engine::SourceSpec::Kind kind)
{
    auto* dialog = new AddSourceDialog(
        kind, [this](const QString& address) { return m_host->requestCodeCheck(address); }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_host, &EngineApi::codeChecked, dialog, &AddSourceDialog::applyCodeCheck);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        // Checked, and nothing written: a source joins a running environment only with a
        // backfill of its own history, which this version does not have.
        const engine::SourceSpec spec = dialog->spec();
        auto* box = new QMessageBox(
            QMessageBox::Information, tr("Source checked, not added"),
            tr("%1 %2 is checked: it has code on the node%3.\n\nNothing was added to the "
               "running environment: adding a source to it arrives with the backfill that "
               "indexes the source's own history. To index it now, start a new environment "
               "from the command line:\n\nforkscope index --env NEW ... %4")
                .arg(spec.kind == engine::SourceSpec::Kind::Factory ? tr("Factory")
                                                                    : tr("Contract"),
                     spec.address,
                     spec.kind == engine::SourceSpec::Kind::Factory
                         ? tr(", and its creation event names the child's address")
                         : QString(),
                     shellWords(spec.indexArguments())),
            QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("sourceNotAdded"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextInteractionFlags(Qt::TextSelectableByMouse);
        box->open();
    });
    dialog->open();
}

} // namespace forkscope::ui
