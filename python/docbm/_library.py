"""Loading libdocbm and declaring the C functions of docbm.h for ctypes.

The library is found as ``$DOCBM_LIBRARY`` when set (a path to ``libdocbm.so.0``), else
beside this module when the package came as a wheel that carries it (``make wheel``), else
as ``libdocbm.so.0`` through the dynamic linker's search (``LD_LIBRARY_PATH``, then the
folders ``ldconfig`` knows, where ``make install`` puts it).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

_SONAME = "libdocbm.so.0"


def _load() -> ctypes.CDLL:
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), _SONAME)
    path = os.environ.get("DOCBM_LIBRARY") or (bundled if os.path.exists(bundled) else _SONAME)
    try:
        return ctypes.CDLL(path)
    except OSError as error:
        raise ImportError(
            f"docbm needs libdocbm ({path}): {error}. Install it with 'make install' at the "
            "top of the docbm repository (then 'ldconfig' when PREFIX is a standard folder), "
            "or set DOCBM_LIBRARY to the path of libdocbm.so.0"
        ) from error


lib = _load()

_p = ctypes.c_void_p
_s = ctypes.c_char_p
_u = ctypes.c_uint
_i = ctypes.c_int
_error_out = ctypes.POINTER(ctypes.c_void_p)


def _declare(name: str, result: Any, *arguments: Any) -> None:
    function = getattr(lib, name)
    function.restype = result
    function.argtypes = list(arguments)


# Strings the caller owns (char *) come back as c_void_p, so that they can be released
# with docbm_free after they are copied; strings an object owns come back as c_char_p.
_declare("docbm_version", _s)
_declare("docbm_free", None, _p)
_declare("docbm_error_code", _u, _p)
_declare("docbm_error_recommendation", _u, _p)
_declare("docbm_error_message", _s, _p)
_declare("docbm_error_description", _s, _p)
_declare("docbm_error_path", _s, _p)
_declare("docbm_error_last_known_path", _s, _p)
_declare("docbm_error_errno", _i, _p)
_declare("docbm_error_system_call", _s, _p)
_declare("docbm_error_step", _s, _p)
_declare("docbm_error_free", None, _p)
_declare("docbm_code_name", _s, _u)
_declare("docbm_recommendation_name", _s, _u)
_declare("docbm_stale_reason_name", _s, _u)
_declare("docbm_verdict_name", _s, _u)
_declare("docbm_repair_action_name", _s, _u)
_declare("docbm_search_reach_name", _s, _u)
_declare("docbm_relink_outcome_name", _s, _u)
_declare("docbm_document_open", _p, _s, _error_out)
_declare("docbm_document_open_searching", _p, _s, _u, ctypes.c_double, _error_out)
_declare("docbm_document_open_with", _p, _s, _u, ctypes.c_double, _u, _error_out)
_declare("docbm_document_close", None, _p)
_declare("docbm_make_bookmark", _p, _p, _s, _error_out)
_declare("docbm_resolve", _p, _p, _s, _error_out)
_declare(
    "docbm_resolve_all",
    ctypes.c_long,
    _p,
    ctypes.POINTER(_s),
    ctypes.c_size_t,
    ctypes.POINTER(_p),
    ctypes.POINTER(_p),
    _error_out,
)
_declare("docbm_resolution_path", _s, _p)
_declare("docbm_resolution_is_stale", _i, _p)
_declare("docbm_resolution_refreshed", _s, _p)
_declare("docbm_resolution_stale_reasons", _u, _p)
_declare("docbm_resolution_is_in_trash", _i, _p)
_declare("docbm_resolution_is_folder", _i, _p)
_declare("docbm_resolution_free", None, _p)
_declare(
    "docbm_relink",
    ctypes.c_long,
    _p,
    ctypes.POINTER(_s),
    ctypes.c_size_t,
    _s,
    _s,
    ctypes.POINTER(_p),
    _error_out,
)
_declare("docbm_relink_result_outcome", _u, _p)
_declare("docbm_relink_result_candidate", _s, _p)
_declare("docbm_relink_result_reason", _s, _p)
_declare("docbm_relink_result_refreshed", _s, _p)
_declare("docbm_relink_result_code", _u, _p)
_declare("docbm_relink_result_free", None, _p)
_declare("docbm_new_document_open", _p, _s, _u, _error_out)
_declare("docbm_new_document_close", None, _p)
_declare("docbm_new_document_make_bookmark", _p, _p, _s, _error_out)
_declare("docbm_document_create", _p, _p, _p, ctypes.c_size_t, _error_out)
_declare("docbm_replace_document", _i, _p, _p, ctypes.c_size_t, _error_out)
_declare("docbm_save_copy", _p, _p, _s, _p, ctypes.c_size_t, _u, _error_out)
_declare("docbm_reanchor_outcome_name", _s, _u)
_declare("docbm_reanchor", ctypes.c_long, _p, _s, ctypes.POINTER(_s), ctypes.c_size_t, ctypes.POINTER(_p), _error_out)
_declare("docbm_reanchored_outcome", _u, _p)
_declare("docbm_reanchored_bookmark", _s, _p)
_declare("docbm_reanchored_candidate_count", ctypes.c_size_t, _p)
_declare("docbm_reanchored_candidate", _s, _p, ctypes.c_size_t)
_declare("docbm_reanchored_code", _u, _p)
_declare("docbm_reanchored_message", _s, _p)
_declare("docbm_reanchored_free", None, _p)
_declare("docbm_adoption_list", _p, _p, _error_out)
_declare("docbm_adoption_count", ctypes.c_size_t, _p)
_declare("docbm_adoption_bookmark", _s, _p, ctypes.c_size_t)
_declare("docbm_adoption_key", _s, _p, ctypes.c_size_t)
_declare("docbm_adoption_recorded_path", _s, _p, ctypes.c_size_t)
_declare("docbm_adoption_recorded_document", _s, _p, ctypes.c_size_t)
_declare("docbm_adoption_target", _s, _p, ctypes.c_size_t)
_declare("docbm_adoption_target_is_folder", _i, _p, ctypes.c_size_t)
_declare("docbm_adoption_needs_own_confirmation", _i, _p, ctypes.c_size_t)
_declare("docbm_adoption_free", None, _p)
_declare(
    "docbm_adopt",
    ctypes.c_long,
    _p,
    _p,
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.c_size_t,
    ctypes.POINTER(_p),
    _error_out,
)
_declare("docbm_replace_document_allowing", _i, _p, _p, ctypes.c_size_t, _u, _error_out)
_declare("docbm_check", _p, _s, _error_out)
_declare("docbm_check_result_verdict", _u, _p)
_declare("docbm_check_result_is_problem", _i, _p)
_declare("docbm_check_result_message", _s, _p)
_declare("docbm_check_result_bookmark_count", ctypes.c_size_t, _p)
_declare("docbm_check_result_path", _s, _p)
_declare("docbm_check_result_free", None, _p)
# docbm_check_visitor: (result, context), called for each document of a tree check.
CHECK_VISITOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
_declare("docbm_check_tree", ctypes.c_longlong, _s, CHECK_VISITOR, _p, ctypes.POINTER(ctypes.c_size_t), _error_out)
_declare("docbm_repair", _p, _s, _error_out)
_declare("docbm_repair_allowing_unrecorded", _p, _s, _error_out)
_declare("docbm_repair_report_action", _u, _p)
_declare("docbm_repair_report_refusal", _s, _p)
_declare("docbm_repair_report_remedy", _s, _p)
_declare("docbm_repair_report_recorded_document", _s, _p)
_declare("docbm_repair_report_advice", _s, _p)
_declare("docbm_repair_report_message", _s, _p)
_declare("docbm_repair_report_verdict", _u, _p)
_declare("docbm_repair_report_free", None, _p)

# A save under test, or a writer of a new version: (path, context) -> 0 when it saved.
SAVE_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_declare("docbm_replace_document_with_writer", _i, _p, SAVE_FUNCTION, _p, _error_out)
_declare("docbm_save_copy_with_writer", _p, _p, _s, _u, SAVE_FUNCTION, _p, _error_out)
_declare("docbm_document_create_with_writer", _p, _p, SAVE_FUNCTION, _p, _error_out)
_declare("docbm_lint_verdict_name", _s, _u)
_declare("docbm_lint_save", _p, SAVE_FUNCTION, _p, _s, _error_out)
_declare("docbm_lint_report_verdict", _u, _p)
_declare("docbm_lint_report_is_safe", _i, _p)
_declare("docbm_lint_report_summary", _s, _p)
_declare("docbm_lint_report_finding_count", ctypes.c_size_t, _p)
_declare("docbm_lint_report_finding_kind", _s, _p, ctypes.c_size_t)
_declare("docbm_lint_report_finding_message", _s, _p, ctypes.c_size_t)
_declare("docbm_lint_report_finding_fix", _s, _p, ctypes.c_size_t)
_declare("docbm_lint_report_free", None, _p)

_declare("docbm_store_open", _p, _s, ctypes.c_size_t, _error_out)
_declare("docbm_store_close", None, _p)
_declare("docbm_store_path", _s, _p)
_declare("docbm_store_add", _p, _p, _s, _s, _error_out)
_declare("docbm_store_add_path_only", _p, _p, _s, _s, _error_out)
_declare("docbm_store_resolve", _p, _p, _s, _error_out)
_declare("docbm_store_set_pinned", _p, _p, _s, _i, _error_out)
_declare("docbm_store_mark_used", _p, _p, _s, _error_out)
_declare("docbm_store_forget", _i, _p, _s, _error_out)
_declare("docbm_store_list", _p, _p, _error_out)
_declare("docbm_store_refresh", ctypes.c_long, _p, _error_out)
_declare("docbm_store_change_descriptor", _i, _p)
_declare("docbm_store_take_changes", ctypes.c_ulong, _p)
_declare("docbm_store_records_count", ctypes.c_size_t, _p)
_declare("docbm_store_records_at", _p, _p, ctypes.c_size_t)
_declare("docbm_store_records_free", None, _p)
_declare("docbm_record_state_name", _s, _u)
_declare("docbm_store_record_key", _s, _p)
_declare("docbm_store_record_path", _s, _p)
_declare("docbm_store_record_state", _u, _p)
_declare("docbm_store_record_failure", _u, _p)
_declare("docbm_store_record_is_pinned", _i, _p)
_declare("docbm_store_record_has_bookmark", _i, _p)
_declare("docbm_store_record_is_gone", _i, _p)
_declare("docbm_store_record_is_in_trash", _i, _p)
_declare("docbm_store_record_created", ctypes.c_longlong, _p)
_declare("docbm_store_record_last_used", ctypes.c_longlong, _p)
_declare("docbm_store_record_metadata", _s, _p)
_declare("docbm_store_set_metadata", _p, _p, _s, _s, _error_out)
_declare("docbm_store_record_free", None, _p)

_declare("docbm_watcher_watch_folders", _p, ctypes.POINTER(_s), ctypes.c_size_t, _u, _error_out)
_declare("docbm_watcher_follow_documents", _p, ctypes.POINTER(_s), ctypes.c_size_t, _u, _error_out)
_declare("docbm_watcher_descriptor", _i, _p)
_declare("docbm_watcher_next_event", _p, _p)
_declare("docbm_watcher_has_nothing_left", _i, _p)
_declare("docbm_watcher_close", None, _p)
_declare("docbm_event_kind_name", _s, _u)
_declare("docbm_watch_event_kind", _u, _p)
_declare("docbm_watch_event_path", _s, _p)
_declare("docbm_watch_event_old_path", _s, _p)
_declare("docbm_watch_event_key", _s, _p)
_declare("docbm_watch_event_is_own_save", _i, _p)
_declare("docbm_watch_event_message", _s, _p)
_declare("docbm_watch_event_free", None, _p)

_declare("docbm_save_step_name", _s, _u)
_declare("docbm_test_fail_save", _p, _s, _u, _i, _error_out)
_declare("docbm_test_crash_save", _p, _s, _error_out)
_declare("docbm_test_fail_resolves", _p, _s, _u, _s, _error_out)
_declare("docbm_test_hold_resolves", _p, _s, _s, _error_out)
_declare("docbm_test_fail_store_reads", _p, _s, _i, _error_out)
_declare("docbm_test_fault_held_count", ctypes.c_size_t, _p)
_declare("docbm_test_fault_wait_until_held", None, _p, ctypes.c_size_t)
_declare("docbm_test_fault_open", None, _p)
_declare("docbm_test_fault_end", None, _p)

_declare("docbm_escrow_list", _p, _error_out)
_declare("docbm_escrow_entries_count", ctypes.c_size_t, _p)
_declare("docbm_escrow_entry_key", _s, _p, ctypes.c_size_t)
_declare("docbm_escrow_entry_created", ctypes.c_longlong, _p, ctypes.c_size_t)
_declare("docbm_escrow_entry_document_count", ctypes.c_size_t, _p, ctypes.c_size_t)
_declare("docbm_escrow_entry_document_path", _s, _p, ctypes.c_size_t, ctypes.c_size_t)
_declare("docbm_escrow_entry_document_origin", _s, _p, ctypes.c_size_t, ctypes.c_size_t)
_declare("docbm_escrow_entry_document_confirmed", ctypes.c_longlong, _p, ctypes.c_size_t, ctypes.c_size_t)
_declare("docbm_escrow_entries_free", None, _p)
_size_out = ctypes.POINTER(ctypes.c_size_t)
_declare("docbm_escrow_export", _i, _s, _i, _size_out, _size_out, _error_out)
_declare("docbm_escrow_import", _i, _s, _size_out, _size_out, _size_out, _error_out)
