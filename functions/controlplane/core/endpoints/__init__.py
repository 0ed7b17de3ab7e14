"""Managed inference endpoints: the InferenceEndpointConfig and JumpStartModel objects the HyperPod inference
operator serves."""
