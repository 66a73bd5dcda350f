"""Guarded driver. Cases: dashboard (hazard: Flask app bound method as Process target),
safe_target (safe: module-level target), no_dashboard (safe)."""
import sys
import time
import sherpa_core

if __name__ == '__main__':
    case = sys.argv[1] if len(sys.argv) > 1 else 'dashboard'
    study = sherpa_core.Study(disable_dashboard=(case == 'no_dashboard'),
                              safe_target=(case == 'safe_target'))
    if case == 'safe_target':
        study.dashboard_process.join(30)
        assert study.dashboard_process.exitcode == 0, study.dashboard_process.exitcode
    time.sleep(0.5)
    print('OK', case)
