"""Subscription-group commands: updateSubGroup, updateSubGroupList, deleteSubGroup, getConsumerConfig."""
