#pragma once

#include "foreign/ForeignWatchSpec.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace forkscope::ui {

// "Watch another indexer...": the inputs of `forkscope audit` (docs/audit.md) for a foreign
// indexer's database, watched against the lab's node. OK accepts only a spec that passes
// foreign::validateWatchSpec; otherwise the dialog says what was wrong in one line and stays.
class WatchIndexerDialog : public QDialog
{
    Q_OBJECT
public:
    explicit WatchIndexerDialog(QWidget* parent = nullptr);

    QLineEdit* targetEdit() const { return m_target; }
    QComboBox* presetBox() const { return m_preset; }
    QLineEdit* tableEdit() const { return m_table; }
    QPlainTextEdit* queryEdit() const { return m_query; }
    QSpinBox* confirmationsBox() const { return m_confirmations; }
    QLineEdit* contractsEdit() const { return m_contracts; }
    QDialogButtonBox* buttons() const { return m_buttons; }
    // What the fields give now.
    foreign::ForeignWatchSpec spec() const;
    // The last complaint (empty when none).
    QString message() const;

private:
    void tryAccept();
    void presetChanged();

    QLineEdit* m_target;
    QComboBox* m_preset;
    QLineEdit* m_table;
    QPlainTextEdit* m_query;
    QSpinBox* m_confirmations;
    QLineEdit* m_contracts;
    QLabel* m_message;
    QDialogButtonBox* m_buttons;
};

} // namespace forkscope::ui
