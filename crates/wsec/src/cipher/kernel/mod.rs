//! Fused AES-CCM kernel (placeholder; being written).
