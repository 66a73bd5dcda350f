# Ultralytics 🚀 AGPL-3.0 License - https://ultralytics.com/license
