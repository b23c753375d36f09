#pragma once

#include "lab/run/LabRunInput.h"

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

// Lab > Run lab scenario...: `forkscope lab run`'s settings (docs/lab-run.md). Start checks
// them by the command line's own rules (lab::LabRunInput), shows one line naming what is
// wrong and starts nothing; else the engine starts the run and a LabRunView follows it.
class LabRunDialog : public QDialog
{
    Q_OBJECT
public:
    LabRunDialog(engine::EngineApi* host, QWidget* parent = nullptr);

    // The audit choice's first entry: a query of one's own; then the presets by name.
    static constexpr int kOwnQuery = 0;

    QLineEdit* indexerEdit() const { return m_indexer; }
    QComboBox* scenarioBox() const { return m_scenario; }
    QLineEdit* seedEdit() const { return m_seed; }
    QLineEdit* confirmationsEdit() const { return m_confirmations; }
    QLineEdit* timeoutEdit() const { return m_timeout; }
    QComboBox* auditBox() const { return m_audit; }
    QPlainTextEdit* queryEdit() const { return m_query; }
    QLineEdit* tableEdit() const { return m_table; }
    QLineEdit* databaseEdit() const { return m_database; }
    QCheckBox* receiptsBox() const { return m_receipts; }
    QDialogButtonBox* buttons() const { return m_buttons; }
    QString message() const;

    // What the fields hold, as lab::LabRunInput takes it.
    lab::LabRunInput input() const;

private:
    void tryStart();
    void showChoice();

    QPointer<engine::EngineApi> m_host;
    QLineEdit* m_indexer;
    QComboBox* m_scenario;
    QLineEdit* m_seed;
    QLineEdit* m_confirmations;
    QLineEdit* m_timeout;
    QComboBox* m_audit;
    QPlainTextEdit* m_query;
    QLineEdit* m_table;
    QLineEdit* m_database;
    QCheckBox* m_receipts;
    QLabel* m_message;
    QDialogButtonBox* m_buttons;
};

} // namespace forkscope::ui
